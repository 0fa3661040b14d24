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
}
