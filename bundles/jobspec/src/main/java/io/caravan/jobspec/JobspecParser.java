package io.caravan.jobspec;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.json.NomadJson;
import io.caravan.jobspec.internal.JobspecDecoder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Turns a jobspec into Nomad's API Job JSON, as {@code nomad job run} and {@code POST /v1/jobs/parse} do.
 *
 * <p>HCL2 (Nomad's jobspec2): exactly one {@code job} block; {@code variable} blocks set by default, var-files and
 * {@code -var} (in increasing precedence); {@code locals}; the common functions ({@code format join split lower
 * upper trimspace replace merge lookup concat length keys values element contains jsonencode jsondecode tostring
 * tonumber coalesce abs min max file}); {@code dynamic} blocks. Runtime interpolations ({@code ${attr.*}},
 * {@code ${node.*}}, {@code ${meta.*}}, {@code ${env["X"]}}, {@code ${NOMAD_*}}, ...) are kept as written. No
 * defaults are applied: the output holds what the file says, in the API's shape.
 */
public final class JobspecParser {

    private JobspecParser() {
    }

    /** Parses with no variables. */
    public static Jobspec parse(String source, String filename) {
        return parse(source, filename, ParseOptions.defaults());
    }

    /** Parses with {@code -var} values and {@code -var-file}s ({@code file()} allowed). */
    public static Jobspec parse(String source, String filename, Map<String, String> vars, List<Path> varFiles) {
        return parse(source, filename, new ParseOptions(vars, varFiles, true));
    }

    /**
     * Parses an HCL2 jobspec. {@code filename} names the source in messages and anchors {@code file()}.
     *
     * @throws JobspecException with every problem found
     */
    public static Jobspec parse(String source, String filename, ParseOptions options) {
        return new Jobspec(JobspecDecoder.decode(source, filename, options.env(), options.vars(),
                options.varFiles(), options.allowFileFunctions()));
    }

    /** Reads (UTF-8) and parses a jobspec file. */
    public static Jobspec parse(Path file, ParseOptions options) {
        String source;
        try {
            source = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new JobspecException(List.of(new Problem(file.toString(), 0, 0, "cannot read: " + e)));
        }
        return parse(source, file.toString(), options);
    }

    /**
     * A JSON job: {@code {"Job": {...}}} (the {@code POST /v1/jobs} body) or a bare job object. Keys are taken
     * as written (the server matches them case-insensitively, as Go does).
     *
     * @return the Job object
     * @throws JobspecException when the text is not JSON, not an object, or the job has neither ID nor Name
     */
    public static ObjectNode parseJson(String json) {
        JsonNode root;
        try {
            root = NomadJson.mapper().readTree(json);
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            throw new JobspecException(List.of(new Problem("<json>", at == null ? 0 : at.getLineNr(),
                    at == null ? 0 : at.getColumnNr(), "Invalid JSON; " + e.getOriginalMessage())));
        }
        if (!(root instanceof ObjectNode object)) {
            throw new JobspecException(List.of(new Problem("<json>", 0, 0,
                    "Invalid job; a JSON object is required, got " + (root == null ? "nothing" : root.getNodeType()))));
        }
        JsonNode wrapped = field(object, "Job");
        ObjectNode job = wrapped instanceof ObjectNode j ? j : object;
        if (wrapped != null && !(wrapped instanceof ObjectNode)) {
            throw new JobspecException(List.of(new Problem("<json>", 0, 0, "Invalid job; \"Job\" must be an object")));
        }
        JsonNode id = field(job, "ID");
        JsonNode name = field(job, "Name");
        if (!nonEmpty(id) && !nonEmpty(name)) {
            throw new JobspecException(List.of(new Problem("<json>", 0, 0, "Invalid job; missing job ID or Name")));
        }
        return job;
    }

    private static boolean nonEmpty(JsonNode n) {
        return n != null && n.isTextual() && !n.asText().isEmpty();
    }

    /** Go's encoding/json matches keys case-insensitively; so does this. */
    private static JsonNode field(ObjectNode o, String name) {
        JsonNode exact = o.get(name);
        if (exact != null) {
            return exact;
        }
        for (Map.Entry<String, JsonNode> e : o.properties()) {
            if (e.getKey().equalsIgnoreCase(name)) {
                return e.getValue();
            }
        }
        return null;
    }
}
