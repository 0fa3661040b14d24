package io.caravan.cli.command;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.Nomad;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code caravan job promote JOB}: promotes the canaries of the job's latest deployment. */
@Command(name = "promote", description = "Promote a job's canaries.")
public final class JobPromoteCommand extends HttpCommand {

    @Parameters(paramLabel = "JOB", description = "A job ID or a unique prefix of one.")
    String job;

    @Option(names = {"-group", "--group"}, paramLabel = "GROUP",
            description = "Promote this group (repeatable); all groups when none is given.")
    List<String> groups = new ArrayList<>();

    @Option(names = {"-detach", "--detach"}, description = "Print the evaluation ID instead of monitoring it.")
    boolean detach;

    @Option(names = {"-verbose", "--verbose"}, description = "Show full IDs.")
    boolean verbose;

    private String stage = "Error retrieving deployment";

    public JobPromoteCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return stage;
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        String jobId = Lookup.id(api, "/v1/jobs", "job", job.strip());
        JsonNode deployment = api.get("/v1/job/" + Json.pathSegment(jobId) + "/deployment");
        if (!Json.present(deployment)) {
            ctx.err().println("Job " + Nomad.quote(jobId) + " has no deployment to promote");
            return 1;
        }
        String deploymentId = Json.text(deployment.get("ID"));
        stage = "Error promoting deployment " + Nomad.quote(deploymentId) + " for job " + Nomad.quote(jobId);
        JsonNode response = DeploymentPromoteCommand.promote(api, deploymentId, groups);
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
}
