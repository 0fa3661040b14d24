package io.caravan.cli.command;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code caravan job inspect ID}: the job as {@code {"Job": {...}}}, ready to feed back to {@code PUT /v1/jobs}. */
@Command(name = "inspect", description = "Print a job's specification as JSON.")
public final class JobInspectCommand extends HttpCommand {

    @Parameters(paramLabel = "ID", description = "A job ID or a unique prefix of one.")
    String id;

    public JobInspectCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error inspecting job";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        String jobId = Lookup.id(api, "/v1/jobs", "job", id);
        JsonNode job = api.get("/v1/job/" + Json.pathSegment(jobId));
        ctx.out().println(Json.indent(JsonNodeFactory.instance.objectNode().set("Job", job)));
        return 0;
    }
}
