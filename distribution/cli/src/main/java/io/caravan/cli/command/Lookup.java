package io.caravan.cli.command;

import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.format.Json;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;

/**
 * Nomad's ID lookup: a command takes an ID or a unique prefix of one ({@code ?prefix=} on the list endpoint); an
 * exact match wins, no match or several are errors in Nomad's words.
 */
final class Lookup {
    private Lookup() {
    }

    /** @param what Nomad's noun: "job", "evaluation", "allocation", "node" */
    static String id(ApiClient api, String listPath, String what, String prefixOrId) throws ApiException {
        JsonNode matches = api.get(listPath, Map.of("prefix", prefixOrId));
        if (!matches.isArray() || matches.isEmpty()) {
            throw new ApiException("No " + what + "(s) with prefix or id \"" + prefixOrId + "\" found");
        }
        StringBuilder ids = new StringBuilder();
        for (JsonNode m : matches) {
            String id = Json.text(m.get("ID"));
            if (id.equals(prefixOrId) || matches.size() == 1) {
                return id;
            }
            ids.append("\n  ").append(id);
        }
        throw new ApiException("Prefix matched multiple " + what + "s:" + ids);
    }

    /** A node named on the command line, or this agent's own node with {@code -self}; Nomad's checks first. */
    static String node(ApiClient api, String prefixOrId, boolean self) throws ApiException {
        String node = self ? localNodeId(api) : prefixOrId;
        if (node.length() == 1) {
            throw new ApiException("Identifier must contain at least two characters.");
        }
        return id(api, "/v1/nodes", "node", node);
    }

    /**
     * The ID of the node this agent runs as a client. Nomad reads {@code stats.client.node_id} of
     * {@code /v1/agent/self}; when an agent does not (yet) report it there, the node registered under the agent's
     * name ({@code config.NodeName}) is taken, provided exactly one node has that name.
     */
    static String localNodeId(ApiClient api) throws ApiException {
        JsonNode self;
        try {
            self = api.get("/v1/agent/self");
        } catch (ApiException e) {
            throw new ApiException("Error querying agent info: " + e.getMessage());
        }
        JsonNode client = self.path("stats").path("client");
        if (client.isMissingNode()) {
            throw new ApiException("Agent not running in client mode");
        }
        String nodeId = Json.text(client.get("node_id"));
        if (!nodeId.isEmpty()) {
            return nodeId;
        }
        String name = Json.text(self.path("config").get("NodeName"));
        if (!name.isEmpty()) {
            String found = null;
            for (JsonNode node : api.get("/v1/nodes")) {
                if (name.equals(Json.text(node.get("Name")))) {
                    if (found != null) {
                        throw new ApiException("Failed to determine node ID: several nodes are named \"" + name + "\"");
                    }
                    found = Json.text(node.get("ID"));
                }
            }
            if (found != null) {
                return found;
            }
        }
        throw new ApiException("Failed to determine node ID");
    }
}
