package io.caravan.cli.command;

import io.caravan.api.json.NomadJson;
import io.caravan.cli.Context;
import io.caravan.cli.format.Nomad;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;

/** {@code caravan deployment pause ID}: stops placing allocations for the deployment until it is resumed. */
@Command(name = "pause", description = "Pause a deployment.")
public final class DeploymentPauseCommand extends DeploymentActionCommand {

    public DeploymentPauseCommand(Context ctx) {
        super(ctx);
    }

    @Override
    String gerund() {
        return "pausing";
    }

    @Override
    int act(ApiClient api, String deploymentId) throws ApiException {
        write(api, "pause", deploymentId, NomadJson.mapper().createObjectNode().put("Pause", true));
        ctx.out().println("Deployment " + Nomad.quote(deploymentId) + " paused");
        return 0;
    }
}
