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

/** {@code caravan job history ID}: the job's versions, newest first, as Nomad prints them. */
@Command(name = "history", description = "Display the versions of a job.")
public final class JobHistoryCommand extends HttpCommand {

    @Parameters(paramLabel = "ID", description = "A job ID or a unique prefix of one.")
    String id;

    @Option(names = {"-json", "--json"}, description = "Output in JSON format.")
    boolean json;

    public JobHistoryCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error retrieving job versions";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        String jobId = Lookup.id(api, "/v1/jobs", "job", id);
        JsonNode versions = api.get("/v1/job/" + Json.pathSegment(jobId) + "/versions").path("Versions");
        if (json) {
            ctx.out().println(Json.indent(versions));
            return 0;
        }
        boolean first = true;
        for (JsonNode v : versions) {
            if (!first) {
                ctx.out().println();
            }
            first = false;
            Nomad.keyValues(ctx.out(),
                    "Version", Json.text(v.get("Version")),
                    "Stable", Boolean.toString(v.path("Stable").asBoolean()),
                    "Submit Date", Nomad.date(v.path("SubmitTime").asLong(), ctx.zone()));
        }
        return 0;
    }
}
