package io.caravan.cli.command;

import java.util.Map;
import java.util.OptionalInt;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.Nomad;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code caravan job stop [-purge] ID}: {@code DELETE /v1/job/:id}, then follows the evaluation that stops the
 * allocations ({@link EvalMonitor}); {@code -detach} prints only the evaluation ID.
 */
@Command(name = "stop", description = "Stop a running job (and with -purge, remove it).")
public final class JobStopCommand extends HttpCommand {

    @Parameters(paramLabel = "ID", description = "A job ID or a unique prefix of one.")
    String id;

    @Option(names = {"-purge", "--purge"}, description = "Remove the job from the system, not only stop it.")
    boolean purge;

    @Option(names = {"-detach", "--detach"}, description = "Return at once with the evaluation ID.")
    boolean detach;

    @Option(names = {"-verbose", "--verbose"}, description = "Show full IDs.")
    boolean verbose;

    @Option(names = {"-yes", "--yes"}, description = "Do not ask for confirmation when ID is a prefix.")
    boolean yes;

    public JobStopCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error deregistering job";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        String jobId = Lookup.id(api, "/v1/jobs", "job", id);
        if (!jobId.equals(id) && !yes) {
            OptionalInt declined = Confirmation.declined(ctx,
                    "Are you sure you want to stop job " + Nomad.quote(jobId) + "? [y/N]", "Cancelling job stop");
            if (declined.isPresent()) {
                return declined.getAsInt();
            }
        }
        JsonNode response = api.delete("/v1/job/" + Json.pathSegment(jobId),
                purge ? Map.of("purge", "true") : Map.of());
        String evalId = Json.text(response.get("EvalID"));
        if (evalId.isEmpty()) {
            return 0; // a periodic or parameterized job: nothing to evaluate
        }
        if (detach) {
            ctx.out().println(evalId);
            return 0;
        }
        return new EvalMonitor(ctx, api, verbose).monitor(evalId);
    }
}
