package io.caravan.cli.command;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.json.NomadJson;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;

/**
 * A job file turned into the API's Job: JSON files as they are, HCL through the server's {@code /v1/jobs/parse}
 * (as Nomad's CLI can), with {@code -var-file} contents and {@code -var name=value} pairs as its Variables.
 */
final class JobFile {
    private JobFile() {
    }

    static JsonNode read(ApiClient api, Path file, List<String> vars, List<Path> varFiles) throws ApiException {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new ApiException("Error reading job file " + file + ": " + InputFile.reason(e));
        }
        if (file.toString().endsWith(".json") || text.stripLeading().startsWith("{")) {
            try {
                JsonNode json = NomadJson.mapper().readTree(text);
                return json.has("Job") ? json.get("Job") : json;
            } catch (IOException e) {
                throw new ApiException(file + ": not valid JSON: " + e.getMessage());
            }
        }
        StringBuilder variables = new StringBuilder();
        for (Path varFile : varFiles) {
            try {
                variables.append(Files.readString(varFile)).append('\n');
            } catch (IOException e) {
                throw new ApiException("Error reading var file " + varFile + ": " + InputFile.reason(e));
            }
        }
        for (String pair : vars) {
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                throw new ApiException("invalid -var \"" + pair + "\": expected name=value");
            }
            variables.append(pair, 0, eq).append(" = ")
                    .append(NomadJson.mapper().valueToTree(pair.substring(eq + 1)).toString()).append('\n');
        }
        ObjectNode request = NomadJson.mapper().createObjectNode();
        request.put("JobHCL", text);
        request.put("Canonicalize", true);
        request.put("Variables", variables.toString());
        return api.post("/v1/jobs/parse", request);
    }
}
