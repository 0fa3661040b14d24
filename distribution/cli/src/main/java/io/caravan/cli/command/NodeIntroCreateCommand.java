package io.caravan.cli.command;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.json.NomadJson;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code caravan node intro create [-node-name] [-node-pool] [-ttl] [-json]}: a client introduction token, printed as
 * the JWT (or {@code {"JWT": ...}} with {@code -json}), for a new client's {@code -client-intro-token}.
 */
@Command(name = "create", description = "Create a client introduction token for a new client to register with.")
public final class NodeIntroCreateCommand extends HttpCommand {
    static final String PATH = "/v1/acl/identity/client-introduction-token";

    @Option(names = {"-node-name", "--node-name"}, paramLabel = "<name>",
            description = "Only a node of this name may register with the token.")
    String nodeName = "";

    @Option(names = {"-node-pool", "--node-pool"}, paramLabel = "<pool>",
            description = "The node pool the node must register in (default: \"default\").")
    String nodePool = "";

    @Option(names = {"-ttl", "--ttl"}, paramLabel = "<duration>",
            description = "How long the token is valid (default: the server's default_identity_ttl).")
    String ttl = "";

    @Option(names = {"-json", "--json"}, description = "Output the token in its JSON format.")
    boolean json;

    public NodeIntroCreateCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error creating client introduction token";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        ObjectNode body = NomadJson.mapper().createObjectNode().put("NodeName", nodeName).put("NodePool", nodePool);
        if (!ttl.isEmpty()) {
            body.put("TTL", ttl);
        }
        JsonNode reply = api.put(PATH, body);
        if (json) {
            ctx.out().println(NomadJson.mapper().createObjectNode().put("JWT", Json.text(reply.get("JWT")))
                    .toPrettyString());
        } else {
            ctx.out().println(Json.text(reply.get("JWT")));
        }
        return 0;
    }
}
