package io.caravan.cli.command;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.json.NomadJson;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code caravan job revert JOB VERSION|TAG}: registers a prior version of the job again (a new version with the old
 * spec) and follows the evaluation unless {@code -detach}. A VERSION that is not a number names a version tag.
 */
@Command(name = "revert", description = "Revert to a prior version of the job.")
public final class JobRevertCommand extends HttpCommand {

    @Parameters(index = "0", paramLabel = "JOB", description = "A job ID or a unique prefix of one.")
    String job;

    @Parameters(index = "1", paramLabel = "VERSION", description = "The job version, or a version tag's name.")
    String version;

    @Option(names = {"-detach", "--detach"}, description = "Print the evaluation ID instead of monitoring it.")
    boolean detach;

    @Option(names = {"-verbose", "--verbose"}, description = "Show full IDs.")
    boolean verbose;

    public JobRevertCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        // Nomad's words for every failure of this command, the revert itself included.
        return "Error retrieving job versions";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        String jobId = Lookup.id(api, "/v1/jobs", "job", job.strip());
        long target = version(api, jobId);
        ObjectNode request = NomadJson.mapper().createObjectNode();
        request.put("JobID", jobId);
        request.put("JobVersion", target);
        JsonNode response = api.put("/v1/job/" + Json.pathSegment(jobId) + "/revert", request);
        String evalId = Json.text(response.get("EvalID"));
        if (evalId.isEmpty()) {
            return 0;
        }
        if (detach) {
            ctx.out().println("Evaluation ID: " + evalId);
            return 0;
        }
        return new EvalMonitor(ctx, api, verbose).monitor(evalId);
    }

    /** A number is the version; anything else a tag, looked up in the job's versions (Nomad's VersionByTag). */
    private long version(ApiClient api, String jobId) throws ApiException {
        if (version.matches("\\d{1,18}")) {
            return Long.parseLong(version);
        }
        JsonNode versions = api.get("/v1/job/" + Json.pathSegment(jobId) + "/versions").path("Versions");
        for (JsonNode v : versions) {
            if (version.equals(Json.text(v.path("VersionTag").get("Name")))) {
                return v.path("Version").asLong();
            }
        }
        throw new ApiException("version tag " + version + " not found for job " + jobId);
    }
}
