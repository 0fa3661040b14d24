package io.caravan.cli.command;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.json.NomadJson;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.Nomad;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code caravan node eligibility -enable|-disable ID|-self}: whether the scheduler may place work on a node. */
@Command(name = "eligibility", description = "Toggle a node's scheduling eligibility.")
public final class NodeEligibilityCommand extends HttpCommand {

    @Parameters(arity = "0..1", paramLabel = "ID", description = "A node ID or a unique prefix of one.")
    String id;

    @Option(names = {"-enable", "--enable"}, description = "Mark the node eligible for scheduling.")
    boolean enable;

    @Option(names = {"-disable", "--disable"}, description = "Mark the node ineligible for scheduling.")
    boolean disable;

    @Option(names = {"-self", "--self"}, description = "The node of the agent the CLI talks to.")
    boolean self;

    public NodeEligibilityCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error updating scheduling eligibility";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        if (enable == disable) {
            throw new UsageException("Either the '-enable' or '-disable' flag must be set");
        }
        if (self == (id != null)) {
            throw new UsageException("Node ID must be specified if -self isn't being used");
        }
        String nodeId = Lookup.node(api, id, self);
        ObjectNode request = NomadJson.mapper().createObjectNode()
                .put("NodeID", nodeId)
                .put("Eligibility", enable ? "eligible" : "ineligible");
        api.put("/v1/node/" + Json.pathSegment(nodeId) + "/eligibility", request);
        ctx.out().println("Node " + Nomad.quote(nodeId) + " scheduling eligibility set: "
                + (enable ? "eligible" : "ineligible") + " for scheduling");
        return 0;
    }
}
