package io.caravan.cli.command;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.api.json.NomadJson;
import io.caravan.cli.Context;
import io.caravan.cli.format.Nomad;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code caravan deployment resume ID}: unpauses a paused deployment ({@code /pause} with {@code Pause: false}). */
@Command(name = "resume", description = "Resume a paused deployment.")
public final class DeploymentResumeCommand extends DeploymentActionCommand {

    @Option(names = {"-detach", "--detach"}, description = "Return without monitoring the evaluation.")
    boolean detach;

    public DeploymentResumeCommand(Context ctx) {
        super(ctx);
    }

    @Override
    String gerund() {
        return "resuming";
    }

    @Override
    int act(ApiClient api, String deploymentId) throws ApiException {
        JsonNode response = write(api, "pause", deploymentId,
                NomadJson.mapper().createObjectNode().put("Pause", false));
        ctx.out().println("Deployment " + Nomad.quote(deploymentId) + " resumed");
        return followEvaluation(api, response, detach, true);
    }
}
