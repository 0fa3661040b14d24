package io.caravan.cli.command;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.json.NomadJson;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.Nomad;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code caravan job tag apply -name NAME [-description TEXT] [-version N] JOB}: names a version of the job (the
 * latest when {@code -version} is left out), as Nomad 1.9 does; the name is unique per job.
 */
@Command(name = "apply", description = "Save a job version tag.")
public final class JobTagApplyCommand extends HttpCommand {

    @Parameters(paramLabel = "JOB", description = "A job ID or a unique prefix of one.")
    String job;

    @Option(names = {"-name", "--name"}, paramLabel = "NAME", required = true, description = "The tag's name.")
    String name;

    @Option(names = {"-description", "--description"}, paramLabel = "TEXT", description = "The tag's description.")
    String description;

    @Option(names = {"-version", "--version"}, paramLabel = "VERSION",
            description = "The version to tag (default: the latest).")
    Long version;

    public JobTagApplyCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error tagging job version";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        if (name.isBlank()) {
            throw new UsageException("-name must not be empty");
        }
        String jobId = Lookup.id(api, "/v1/jobs", "job", job.strip());
        long target = version != null ? version
                : api.get("/v1/job/" + Json.pathSegment(jobId)).path("Version").asLong();
        ObjectNode request = NomadJson.mapper().createObjectNode();
        request.put("JobID", jobId);
        request.put("Name", name);
        request.put("Version", target);
        if (description != null) {
            request.put("Description", description);
        }
        api.put("/v1/job/" + Json.pathSegment(jobId) + "/versions/" + Json.pathSegment(name) + "/tag", request);
        ctx.out().println("Job version " + target + " tagged with name " + Nomad.quote(name));
        return 0;
    }
}
