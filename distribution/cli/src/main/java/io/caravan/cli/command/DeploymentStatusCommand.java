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

/**
 * {@code caravan deployment status [ID]}: one deployment as Nomad prints it (the list without an ID);
 * {@code -monitor} follows it until it ends ({@link DeploymentMonitor}).
 */
@Command(name = "status", description = "Display the status of a deployment.")
public final class DeploymentStatusCommand extends HttpCommand {

    @Parameters(arity = "0..1", paramLabel = "ID", description = "A deployment ID or a unique prefix of one.")
    String id;

    @Option(names = {"-json", "--json"}, description = "Output the deployment in JSON format.")
    boolean json;

    @Option(names = {"-verbose", "--verbose"}, description = "Show full IDs (and the allocations when monitoring).")
    boolean verbose;

    @Option(names = {"-monitor", "--monitor"}, description = "Follow the deployment until it ends.")
    boolean monitor;

    public DeploymentStatusCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return id == null ? "Error retrieving deployments" : "Error retrieving deployment";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        if (monitor && json) {
            throw new UsageException("The monitor flag cannot be used with the '-json' or '-t' flags");
        }
        if (id == null) {
            Deployments.list(api.get("/v1/deployments"), verbose).forEach(ctx.out()::println);
            return 0;
        }
        JsonNode d = Deployments.lookup(api, id, verbose, ctx.err());
        if (d == null) {
            return 1;
        }
        if (json) {
            ctx.out().println(Json.indent(d));
            return 0;
        }
        if (monitor) {
            String deploymentId = Json.text(d.get("ID"));
            ctx.out().println(Nomad.time(Instant.now(), ctx.zone()) + ": Monitoring deployment "
                    + Nomad.quote(Nomad.id(deploymentId, verbose)));
            new DeploymentMonitor(ctx, api, verbose, DeploymentMonitor.stdoutIsTerminal(), "")
                    .monitor(deploymentId);
            return 0;
        }
        Deployments.details(d, verbose, true, ctx.zone()).forEach(ctx.out()::println);
        return 0;
    }
}
