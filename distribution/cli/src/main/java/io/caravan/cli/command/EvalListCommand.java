package io.caravan.cli.command;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.Nomad;
import io.caravan.cli.format.Table;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code caravan eval list}: Nomad's evaluation table. */
@Command(name = "list", description = "List evaluations.")
public final class EvalListCommand extends HttpCommand {

    @Option(names = {"-json", "--json"}, description = "Output in JSON format.")
    boolean json;

    public EvalListCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error querying evaluations";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        JsonNode evals = api.get("/v1/evaluations");
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
        return 0;
    }
}
