package io.caravan.cli.command;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.Nomad;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code caravan eval status ID}: one evaluation. */
@Command(name = "status", description = "Display the status of an evaluation.")
public final class EvalStatusCommand extends HttpCommand {

    @Parameters(paramLabel = "ID", description = "An evaluation ID or a unique prefix of one.")
    String id;

    @Option(names = {"-json", "--json"}, description = "Output in JSON format.")
    boolean json;

    @Option(names = {"-monitor", "--monitor"}, description = "Follow the evaluation until it completes.")
    boolean monitor;

    @Option(names = {"-verbose", "--verbose"}, description = "Show full IDs.")
    boolean verbose;

    public EvalStatusCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error querying evaluation";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        String evalId = Lookup.id(api, "/v1/evaluations", "evaluation", id);
        if (monitor && !json) {
            return new EvalMonitor(ctx, api, verbose).monitor(evalId);
        }
        JsonNode e = api.get("/v1/evaluation/" + evalId);
        if (json) {
            ctx.out().println(Json.indent(e));
            return 0;
        }
        Nomad.keyValues(ctx.out(),
                "ID", Nomad.id(Json.text(e.get("ID")), verbose),
                "Create Time", Nomad.date(e.path("CreateTime").asLong(), ctx.zone()),
                "Modify Time", Nomad.date(e.path("ModifyTime").asLong(), ctx.zone()),
                "Status", Json.text(e.get("Status")),
                "Status Description", Json.text(e.get("StatusDescription")),
                "Type", Json.text(e.get("Type")),
                "TriggeredBy", Json.text(e.get("TriggeredBy")),
                "Job ID", Json.text(e.get("JobID")),
                "Namespace", Json.text(e.get("Namespace")),
                "Priority", Json.text(e.get("Priority")),
                "Placement Failures", Boolean.toString(e.path("FailedTGAllocs").size() > 0));
        return 0;
    }
}
