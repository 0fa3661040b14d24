package io.caravan.server.internal;

import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.template.ConsulFunctions;
import io.caravan.template.Functions;
import io.caravan.template.Template;
import io.caravan.template.TemplateException;
import io.caravan.template.TemplateOptions;

/**
 * A task's {@code template} blocks at registration: Nomad's defaults, and its checks plus the template's own syntax,
 * so a typo fails {@code job run} with its line and column rather than the task's start on some client. The functions
 * a template may call are those the client provides; any other (Consul's {@code key}, Vault's {@code secret}, ...)
 * is an error here, as nothing could answer it.
 */
final class TemplateRules {
    /** The client's data functions: their data exists only there, so here they only need to be declared. */
    static final List<String> CLIENT_FUNCTIONS = List.of("nomadVar", "nomadVarList", "nomadVarExists",
            "nomadService", "nomadServices");
    private static final Set<String> CHANGE_MODES = Set.of("noop", "restart", "signal", "script");
    private static final long SPLAY_DEFAULT = 5_000_000_000L;
    private static final Functions FUNCTIONS = ConsulFunctions.create(Map.of(), Clock.systemUTC())
            .declaring(CLIENT_FUNCTIONS.toArray(String[]::new));

    private TemplateRules() {
    }

    /** Nomad's {@code Template.Canonicalize}. */
    static void defaults(ObjectNode task) {
        if (!(task.get("Templates") instanceof ArrayNode templates)) {
            return;
        }
        for (JsonNode node : templates) {
            if (node instanceof ObjectNode t) {
                Jobs.putIfMissing(t, "ChangeMode", "restart");
                Jobs.putIfMissing(t, "Perms", "0644");
                Jobs.putIfMissing(t, "Splay", SPLAY_DEFAULT);
                Jobs.putIfMissing(t, "LeftDelim", "{{");
                Jobs.putIfMissing(t, "RightDelim", "}}");
                Jobs.putIfMissing(t, "ErrMissingKey", false);
                Jobs.putIfMissing(t, "Envvars", false);
                Jobs.putIfMissing(t, "Once", false);
                if (t.path("ChangeSignal").isTextual()) {
                    t.put("ChangeSignal", t.get("ChangeSignal").asText().toUpperCase(java.util.Locale.ROOT));
                }
            }
        }
    }

    static void validate(List<String> problems, String taskAt, JsonNode task) {
        JsonNode templates = task.path("Templates");
        for (int i = 0; templates.isArray() && i < templates.size(); i++) {
            template(problems, taskAt + ".Templates[" + i + "]", templates.get(i));
        }
    }

    private static void template(List<String> problems, String at, JsonNode t) {
        String source = t.path("SourcePath").asText("");
        String data = t.path("EmbeddedTmpl").asText("");
        String dest = t.path("DestPath").asText("");
        if (source.isEmpty() && data.isEmpty()) {
            problems.add(at + ": must specify a source path or have an embedded template");
        }
        if (dest.isEmpty()) {
            problems.add(at + ".DestPath: must specify a destination for the template");
        } else if (escapes(dest)) {
            problems.add(at + ".DestPath: destination escapes allocation directory: \"" + dest + "\"");
        }
        if (!source.isEmpty() && escapes(source)) {
            problems.add(at + ".SourcePath: source escapes allocation directory: \"" + source + "\"");
        }
        String mode = t.path("ChangeMode").asText("restart");
        if (!CHANGE_MODES.contains(mode)) {
            problems.add(at + ".ChangeMode: change mode must be one of \"noop\", \"restart\", \"signal\", \"script\", "
                    + "not \"" + mode + "\"");
        } else if (mode.equals("signal") && t.path("ChangeSignal").asText("").isEmpty()) {
            problems.add(at + ".ChangeSignal: must specify signal value when change mode is signal");
        } else if (mode.equals("script") && t.path("ChangeScript").path("Command").asText("").isEmpty()) {
            problems.add(at + ".ChangeScript: must specify script path value when change mode is script");
        }
        if (t.path("Splay").isNumber() && t.path("Splay").asLong() < 0) {
            problems.add(at + ".Splay: must specify positive splay value");
        }
        String perms = t.path("Perms").asText("0644");
        if (!perms.matches("0?[0-7]{1,4}")) {
            problems.add(at + ".Perms: failed to parse \"" + perms + "\" as octal");
        }
        JsonNode wait = t.path("Wait");
        if (wait.path("Min").isNumber() && wait.path("Max").isNumber()
                && wait.path("Min").asLong() > wait.path("Max").asLong()) {
            problems.add(at + ".Wait: wait min " + wait.path("Min") + " is greater than max " + wait.path("Max"));
        }
        if (!data.isEmpty()) {
            try {
                Template.parse(dest.isEmpty() ? "EmbeddedTmpl" : dest, data, options(t));
            } catch (TemplateException e) {
                problems.add(at + ".EmbeddedTmpl: " + e.getMessage());
            }
        }
    }

    /** The options a client renders {@code t} with (the delimiters of the block; functions as declared here). */
    static TemplateOptions options(JsonNode t) {
        return TemplateOptions.defaults().withFunctions(FUNCTIONS)
                .withDelims(t.path("LeftDelim").asText(""), t.path("RightDelim").asText(""));
    }

    /**
     * Nomad's rule: a path taken relative to the task directory (an absolute one too) may reach the allocation's
     * other directories ({@code ../alloc/...}) but not above the allocation.
     */
    static boolean escapes(String path) {
        String relative = path.startsWith("/") ? path.substring(1) : path;
        try {
            return Path.of("task").resolve(relative).normalize().startsWith("..");
        } catch (RuntimeException e) {
            return true;
        }
    }
}
