package io.caravan.cli.command;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.Context;
import io.caravan.cli.format.Nomad;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code caravan deployment unblock ID}: unblocks a multiregion deployment waiting on its peers. */
@Command(name = "unblock", description = "Manually unblock a deployment.")
public final class DeploymentUnblockCommand extends DeploymentActionCommand {

    @Option(names = {"-detach", "--detach"}, description = "Return without monitoring the evaluation.")
    boolean detach;

    public DeploymentUnblockCommand(Context ctx) {
        super(ctx);
    }

    @Override
    String gerund() {
        return "unblocking";
    }

    @Override
    int act(ApiClient api, String deploymentId) throws ApiException {
        JsonNode response = write(api, "unblock", deploymentId, null);
        ctx.out().println("Deployment " + Nomad.quote(deploymentId) + " unblocked");
        return followEvaluation(api, response, detach, true);
    }
}
