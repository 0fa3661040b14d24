package io.caravan.cli.command;

import java.time.Instant;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.Nomad;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code caravan alloc status ID}: one allocation (its tasks' events come with the client issue). */
@Command(name = "status", description = "Display the status of an allocation.")
public final class AllocStatusCommand extends HttpCommand {

    @Parameters(paramLabel = "ID", description = "An allocation ID or a unique prefix of one.")
    String id;

    @Option(names = {"-json", "--json"}, description = "Output in JSON format.")
    boolean json;

    public AllocStatusCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error querying allocation";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        JsonNode a = api.get("/v1/allocation/" + Lookup.id(api, "/v1/allocations", "allocation", id));
        if (json) {
            ctx.out().println(Json.indent(a));
            return 0;
        }
        Instant now = Instant.now();
        Nomad.keyValues(ctx.out(),
                "ID", Nomad.shortId(Json.text(a.get("ID"))),
                "Eval ID", Nomad.shortId(Json.text(a.get("EvalID"))),
                "Name", Json.text(a.get("Name")),
                "Node ID", Nomad.shortId(Json.text(a.get("NodeID"))),
                "Node Name", Json.text(a.get("NodeName")),
                "Job ID", Json.text(a.get("JobID")),
                "Job Version", Json.text(a.path("Job").get("Version")),
                "Client Status", Json.text(a.get("ClientStatus")),
                "Client Description", Json.text(a.get("ClientDescription")),
                "Desired Status", Json.text(a.get("DesiredStatus")),
                "Desired Description", Json.text(a.get("DesiredDescription")),
                "Created", Nomad.ago(a.path("CreateTime").asLong(), now),
                "Modified", Nomad.ago(a.path("ModifyTime").asLong(), now));
        return 0;
    }
}
