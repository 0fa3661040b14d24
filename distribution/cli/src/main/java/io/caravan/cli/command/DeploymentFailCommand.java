package io.caravan.cli.command;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.Nomad;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code caravan deployment fail ID}: marks the deployment failed (and auto-reverts where the job says so). */
@Command(name = "fail", description = "Manually fail a deployment.")
public final class DeploymentFailCommand extends DeploymentActionCommand {

    @Option(names = {"-detach", "--detach"}, description = "Return without monitoring the evaluation.")
    boolean detach;

    public DeploymentFailCommand(Context ctx) {
        super(ctx);
    }

    @Override
    String gerund() {
        return "failing";
    }

    @Override
    int act(ApiClient api, String deploymentId) throws ApiException {
        JsonNode response = write(api, "fail", deploymentId, null);
        JsonNode reverted = response.get("RevertedJobVersion");
        if (Json.present(reverted)) {
            ctx.out().println("Deployment " + Nomad.quote(deploymentId) + " failed. Auto-reverted to job version "
                    + reverted.asLong() + ".");
        } else {
            ctx.out().println("Deployment " + Nomad.quote(deploymentId) + " failed");
        }
        return followEvaluation(api, response, detach, true);
    }
}
