package io.caravan.jobspec.internal;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a job sets that Caravan parses but does not act on: the items {@link JobSchema} marks unsupported, found in
 * the API Job JSON (so an HCL job, once parsed, and a JSON job are read the same way), each named by its path in
 * the jobspec: {@code group "web" -> task "app": identity block is not supported yet and was ignored (...)}.
 */
public final class Ignored {

    private Ignored() {
    }

    /** One message per ignored item and place (several {@code service} blocks of a group make one). */
    public static List<String> in(JsonNode job) {
        Set<String> out = new LinkedHashSet<>();
        walk(job, JobSchema.JOB, "", out);
        return List.copyOf(out);
    }

    private static void walk(JsonNode node, Schema schema, String path, Set<String> out) {
        if (node == null || !node.isObject()) {
            return;
        }
        schema.attrs.forEach((hcl, attr) -> check(node.get(attr.json()), schema.unsupported.get(hcl), path, hcl,
                out));
        schema.free.forEach((hcl, free) -> check(node.get(free.json()), schema.unsupported.get(hcl), path, hcl, out));
        schema.blocks.forEach((key, nested) -> {
            if (nested.json() == null || nested.json().startsWith("\u0000")) {
                return; // ports are split by the parser; job and group vault blocks end up in the tasks
            }
            // a block the parser moved to a field of its own (the default identity) keeps its HCL name
            String hcl = key.startsWith("\u0000") ? key.substring(1) : key;
            JsonNode value = node.get(nested.json());
            Schema.Unsupported mark = schema.unsupported.get(key);
            for (Map.Entry<String, JsonNode> block : blocks(value, nested, hcl)) {
                if (mark == null) {
                    walk(block.getValue(), nested.schema(), join(path, block.getKey()), out);
                } else if (isSet(block.getValue()) && mark.when().test(block.getValue())) {
                    out.add(message(path, hcl + " block", mark.reason()));
                }
            }
        });
    }

    /** Each block of a nested item with its path segment: {@code task "app"}, {@code resources}, ... */
    private static List<Map.Entry<String, JsonNode>> blocks(JsonNode value, Schema.Nested nested, String hcl) {
        List<Map.Entry<String, JsonNode>> out = new ArrayList<>();
        if (value == null || value.isNull()) {
            return out;
        }
        switch (nested.card()) {
            case ONE -> out.add(Map.entry(hcl, value));
            case LIST -> value.forEach(item -> {
                JsonNode label = nested.labelKey() == null ? null : item.get(nested.labelKey());
                out.add(Map.entry(label == null || !label.isTextual() ? hcl
                        : hcl + " \"" + label.asText() + "\"", item));
            });
            case MAP -> value.fields().forEachRemaining(e -> out.add(Map.entry(hcl + " \"" + e.getKey() + "\"",
                    e.getValue())));
        }
        return out;
    }

    private static void check(JsonNode value, Schema.Unsupported mark, String path, String hcl, Set<String> out) {
        if (mark != null && isSet(value) && mark.when().test(value)) {
            out.add(message(path, hcl, mark.reason()));
        }
    }

    /** Set as Go sees it: not null and not a zero value (false, 0, ""), nor a container of nothing set. */
    static boolean isSet(JsonNode value) {
        if (value == null || value.isNull() || value.isMissingNode()) {
            return false;
        }
        if (value.isContainerNode()) {
            for (JsonNode child : value) {
                if (isSet(child)) {
                    return true;
                }
            }
            return false;
        }
        if (value.isBoolean()) {
            return value.asBoolean();
        }
        if (value.isNumber()) {
            return value.asDouble() != 0;
        }
        return !value.asText().isEmpty();
    }

    private static String join(String path, String segment) {
        return path.isEmpty() ? segment : path + " -> " + segment;
    }

    private static String message(String path, String what, String reason) {
        return (path.isEmpty() ? "" : path + ": ") + what + " is not supported yet and was ignored (" + reason + ")";
    }
}
