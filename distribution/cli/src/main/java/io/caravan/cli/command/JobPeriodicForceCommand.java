package io.caravan.cli.command;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.api.json.NomadJson;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code caravan job periodic force [-detach] JOB}: launches a periodic job now ({@code POST
 * /v1/job/:id/periodic/force}), whatever its schedule and {@code prohibit_overlap}, then follows the evaluation.
 */
@Command(name = "force", description = "Launch a periodic job now.")
public final class JobPeriodicForceCommand extends HttpCommand {

    @Parameters(paramLabel = "JOB", description = "A periodic job's ID or a unique prefix of one.")
    String id;

    @Option(names = {"-detach", "--detach"}, description = "Return at once with the evaluation ID.")
    boolean detach;

    @Option(names = {"-verbose", "--verbose"}, description = "Show full IDs.")
    boolean verbose;

    public JobPeriodicForceCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error forcing periodic job";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        String jobId = Lookup.id(api, "/v1/jobs", "job", id);
        JsonNode response = api.put("/v1/job/" + Json.pathSegment(jobId) + "/periodic/force",
                NomadJson.mapper().createObjectNode());
        String evalId = Json.text(response.get("EvalID"));
        if (detach) {
            ctx.out().println("Force periodic successful");
            ctx.out().println("Evaluation ID: " + evalId);
            return 0;
        }
        return new EvalMonitor(ctx, api, verbose).monitor(evalId);
    }
}
