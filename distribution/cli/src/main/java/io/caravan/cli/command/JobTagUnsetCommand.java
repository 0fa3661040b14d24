package io.caravan.cli.command;

import java.util.Map;

import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.Nomad;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code caravan job tag unset -name NAME JOB}: takes the tag off whichever version of the job carries it. */
@Command(name = "unset", description = "Remove a tag from a job version.")
public final class JobTagUnsetCommand extends HttpCommand {

    @Parameters(paramLabel = "JOB", description = "A job ID or a unique prefix of one.")
    String job;

    @Option(names = {"-name", "--name"}, paramLabel = "NAME", required = true, description = "The tag's name.")
    String name;

    public JobTagUnsetCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error removing job version tag";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        String jobId = Lookup.id(api, "/v1/jobs", "job", job.strip());
        api.delete("/v1/job/" + Json.pathSegment(jobId) + "/versions/" + Json.pathSegment(name) + "/tag", Map.of());
        ctx.out().println("Tag " + Nomad.quote(name) + " removed from job " + Nomad.quote(jobId));
        return 0;
    }
}
