package io.caravan.cli.command;

import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code caravan alloc stop ID}: stops an allocation so the scheduler replaces it ({@code PUT
 * /v1/allocation/:id/stop}), then follows the evaluation that does ({@link EvalMonitor}); {@code -detach} prints
 * only the evaluation ID. A batch job's allocation is rescheduled, as Nomad asks for.
 */
@Command(name = "stop", description = "Stop an allocation and have it rescheduled.")
public final class AllocStopCommand extends HttpCommand {

    @Parameters(paramLabel = "ID", description = "An allocation ID or a unique prefix of one.")
    String id;

    @Option(names = {"-detach", "--detach"}, description = "Return at once with the evaluation ID.")
    boolean detach;

    @Option(names = {"-verbose", "--verbose"}, description = "Show full IDs.")
    boolean verbose;

    @Option(names = {"-no-shutdown-delay", "--no-shutdown-delay"},
            description = "Ignore the group's and tasks' shutdown_delay.")
    boolean noShutdownDelay;

    public AllocStopCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error stopping allocation";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        if (id.length() == 1) {
            throw new UsageException("Alloc ID must contain at least two characters.");
        }
        String allocId = Lookup.id(api, "/v1/allocations", "allocation", id);
        JsonNode alloc = api.get("/v1/allocation/" + Json.pathSegment(allocId));
        Map<String, String> query = new LinkedHashMap<>();
        if ("batch".equals(Json.text(alloc.path("Job").get("Type")))) {
            query.put("reschedule", "true");
        }
        if (noShutdownDelay) {
            query.put("no_shutdown_delay", "true");
        }
        JsonNode response = api.put("/v1/allocation/" + Json.pathSegment(allocId) + "/stop", query, null);
        String evalId = Json.text(response.get("EvalID"));
        if (detach || evalId.isEmpty()) {
            ctx.out().println(evalId);
            return 0;
        }
        return new EvalMonitor(ctx, api, verbose).monitor(evalId);
    }
}
