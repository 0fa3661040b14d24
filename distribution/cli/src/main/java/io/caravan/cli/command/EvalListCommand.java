package io.caravan.cli.command;

import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.Nomad;
import io.caravan.cli.format.Table;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code caravan eval list [-status S] [-job J] [-filter F] [-per-page N] [-page-token T] [-json]}: Nomad's table. */
@Command(name = "list", description = "List evaluations.")
public final class EvalListCommand extends HttpCommand {

    @Option(names = {"-json", "--json"}, description = "Output in JSON format.")
    boolean json;

    @Option(names = {"-status", "--status"}, paramLabel = "<status>", description = "Only evaluations in this status.")
    String status;

    @Option(names = {"-job", "--job"}, paramLabel = "<job>", description = "Only evaluations of this job ID.")
    String job;

    @Option(names = {"-filter", "--filter"}, paramLabel = "<expression>",
            description = "A filter expression on the evaluations.")
    String filter;

    @Option(names = {"-per-page", "--per-page"}, paramLabel = "<n>", description = "How many results per page.")
    int perPage;

    @Option(names = {"-page-token", "--page-token"}, paramLabel = "<token>", description = "Where to start.")
    String pageToken;

    public EvalListCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error querying evaluations";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        Map<String, String> query = new LinkedHashMap<>();
        query.put("status", status);
        query.put("job", job);
        query.put("filter", filter);
        query.put("per_page", perPage > 0 ? Integer.toString(perPage) : "");
        query.put("next_token", pageToken);
        ApiClient.Answer answer = api.call("GET", "/v1/evaluations", query, null);
        JsonNode evals = answer.body();
        if (json) {
            ctx.out().println(Json.indent(evals));
            return 0;
        }
        if (evals.isEmpty()) {
            ctx.out().println("No evals found");
            return 0;
        }
        Table table = new Table("ID", "Priority", "Triggered By", "Job ID", "Namespace", "Node ID", "Status",
                "Placement Failures").placeholder(Nomad.NONE);
        for (JsonNode e : evals) {
            table.row(Nomad.shortId(Json.text(e.get("ID"))), Json.text(e.get("Priority")),
                    Json.text(e.get("TriggeredBy")), Json.text(e.get("JobID")), Json.text(e.get("Namespace")),
                    Nomad.shortId(Json.text(e.get("NodeID"))), Json.text(e.get("Status")),
                    EvalStatusCommand.placementFailures(e));
        }
        table.print(ctx.out());
        if (!answer.nextToken().isEmpty()) {
            ctx.out().println();
            ctx.out().println("Results have been paginated. To get the next page run:");
            ctx.out().println();
            ctx.out().println("caravan eval list" + (perPage > 0 ? " -per-page " + perPage : "")
                    + " -page-token " + answer.nextToken());
        }
        return 0;
    }
}
