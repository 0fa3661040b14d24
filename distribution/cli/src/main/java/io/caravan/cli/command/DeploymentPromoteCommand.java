package io.caravan.cli.command;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.json.NomadJson;
import io.caravan.cli.Context;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code caravan deployment promote ID}: promotes the canaries of every group, or of each {@code -group}. */
@Command(name = "promote", description = "Promote canaries in a deployment.")
public final class DeploymentPromoteCommand extends DeploymentActionCommand {

    @Option(names = {"-group", "--group"}, paramLabel = "GROUP",
            description = "Promote this group (repeatable); all groups when none is given.")
    List<String> groups = new ArrayList<>();

    @Option(names = {"-detach", "--detach"}, description = "Print the evaluation ID instead of monitoring it.")
    boolean detach;

    public DeploymentPromoteCommand(Context ctx) {
        super(ctx);
    }

    @Override
    String gerund() {
        return "promoting";
    }

    @Override
    int act(ApiClient api, String deploymentId) throws ApiException {
        return followEvaluation(api, promote(api, deploymentId, groups), detach, false);
    }

    /** Nomad's PromoteAll / PromoteGroups body. */
    static JsonNode promote(ApiClient api, String deploymentId, List<String> groups) throws ApiException {
        ObjectNode body = NomadJson.mapper().createObjectNode();
        body.put("All", groups.isEmpty());
        if (!groups.isEmpty()) {
            ArrayNode names = body.putArray("Groups");
            groups.forEach(names::add);
        }
        return write(api, "promote", deploymentId, body);
    }
}
