package io.caravan.cli.command;

import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.json.NomadJson;
import io.caravan.cli.Context;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code caravan eval delete [-filter F] [-yes] [ID]}: Nomad's operator delete, for a backlog that cannot be worked
 * off; the eval broker must be paused first ({@code operator scheduler set-config -pause-eval-broker=true}). A filter
 * delete shows how many evaluations match and asks before deleting them, unless {@code -yes}.
 */
@Command(name = "delete", description = "Delete evaluations by ID or by filter (the eval broker must be paused).")
public final class EvalDeleteCommand extends HttpCommand {

    @Option(names = {"-filter", "--filter"}, paramLabel = "<expression>",
            description = "Delete the evaluations matching this filter expression.")
    String filter;

    @Option(names = {"-yes", "--yes"}, description = "Do not ask for confirmation of a filter delete.")
    boolean yes;

    @Parameters(arity = "0..1", paramLabel = "ID", description = "The full ID of the evaluation to delete.")
    List<String> ids = List.of();

    public EvalDeleteCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error deleting evaluations";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        boolean byFilter = filter != null && !filter.isEmpty();
        if (byFilter == !ids.isEmpty()) {
            throw new UsageException("Evaluation ID or filter flag required, but not both");
        }
        ObjectNode body = NomadJson.mapper().createObjectNode();
        if (byFilter) {
            JsonNode count = api.get("/v1/evaluations/count", Map.of("filter", filter, "namespace", "*"));
            int matching = count.path("Count").asInt();
            if (matching == 0) {
                ctx.out().println("No evaluations to delete");
                return 0;
            }
            if (!yes) {
                OptionalInt declined = Confirmation.declined(ctx, "Are you sure you want to delete " + matching
                        + " evals? [y/N]", "Cancelling eval deletion");
                if (declined.isPresent()) {
                    return declined.getAsInt();
                }
            }
            body.put("Filter", filter);
        } else {
            body.putArray("EvalIDs").add(ids.get(0));
        }
        int deleted = api.call("DELETE", "/v1/evaluations", Map.of(), body).body().path("Count").asInt();
        ctx.out().println("Successfully deleted " + deleted + (deleted == 1 ? " evaluation" : " evaluations"));
        return 0;
    }
}
