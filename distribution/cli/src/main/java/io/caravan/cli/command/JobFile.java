package io.caravan.cli.command;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.api.json.NomadJson;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import io.caravan.jobspec.JobspecException;
import io.caravan.jobspec.JobspecParser;
import io.caravan.jobspec.ParseOptions;

/**
 * A job file turned into the API's Job: JSON files as they are, HCL parsed here by the jobspec library with
 * {@code -var-file}s and {@code -var name=value} pairs (as Nomad's CLI parses locally); the server canonicalizes and
 * validates what it is sent.
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
        // HCL is parsed here, as Nomad's CLI does: no agent is needed, and every position names the user's file.
        java.util.Map<String, String> values = new java.util.LinkedHashMap<>();
        for (String pair : vars) {
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                throw new ApiException("invalid -var \"" + pair + "\": expected name=value");
            }
            values.put(pair.substring(0, eq), pair.substring(eq + 1));
        }
        try {
            return JobspecParser.parse(text, file.toString(), new ParseOptions(values, varFiles, true)).job();
        } catch (JobspecException e) {
            throw new ApiException(e.getMessage()); // one file:line:column: problem line each
        }
    }
}
