package io.caravan.cli.command;

import java.io.PrintWriter;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.json.NomadJson;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.Nomad;
import io.caravan.hcl.Attribute;
import io.caravan.hcl.Block;
import io.caravan.hcl.EvalContext;
import io.caravan.hcl.HclException;
import io.caravan.hcl.HclFile;
import io.caravan.hcl.HclParser;
import io.caravan.hcl.Value;

/**
 * What the {@code var} commands share: Nomad's messages, the variable specification (JSON or HCL), the output
 * formats ({@code json}, {@code hcl}, {@code table}, {@code go-template} for field references) and the
 * check-and-set conflict report.
 */
final class Vars {
    static final String ERR_MISSING_TEMPLATE =
            "A template must be supplied using '-template' when using go-template formatting";
    static final String ERR_UNEXPECTED_TEMPLATE =
            "The '-template' flag is only valid when using 'go-template' formatting";
    static final String ERR_INVALID_IN = "Invalid value for \"-in\"; valid values are [hcl, json]";
    static final String ERR_INVALID_OUT =
            "Invalid value for \"-out\"; valid values are [go-template, hcl, json, none, table]";
    static final String ERR_WILDCARD = "The wildcard namespace (\"*\") is not valid for this command.";
    static final String NOT_FOUND = "Variable not found";
    static final String NONE_MATCHING = "No matching variables found";
    private static final Set<String> SPEC_KEYS = Set.of("namespace", "path", "create_index", "modify_index",
            "create_time", "modify_time", "items");

    private Vars() {
    }

    /** Whether standard output is a terminal: Nomad's var commands pick their default format by it. */
    static boolean terminal() {
        return System.console() != null;
    }

    /** {@code /v1/var/<path>}, percent-encoded but for the characters Nomad allows in a path. */
    static String url(String path) {
        StringBuilder out = new StringBuilder("/v1/var/");
        for (byte b : path.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            // Dots too are encoded: "a/../b" must reach the agent's path check, not a URL normaliser on the way.
            if (c < 0x80 && (Character.isLetterOrDigit(c) || "-_~/".indexOf(c) >= 0)) {
                out.append(c);
            } else {
                out.append('%').append(String.format("%02X", b & 0xff));
            }
        }
        return out.toString();
    }

    /** Nomad trims spaces and slashes from a path given as an argument. */
    static String sanitize(String path) {
        return path.strip().replaceAll("^/+|/+$", "");
    }

    static void checkOut(String out, String template, boolean allowNone) throws UsageException {
        if (!"go-template".equals(out) && template != null && !template.isEmpty()) {
            throw new UsageException(ERR_UNEXPECTED_TEMPLATE);
        }
        switch (out) {
            case "json", "hcl", "table" -> { }
            case "none" -> {
                if (!allowNone) {
                    throw new UsageException(ERR_INVALID_OUT);
                }
            }
            case "go-template" -> {
                if (template == null || template.isEmpty()) {
                    throw new UsageException(ERR_MISSING_TEMPLATE);
                }
            }
            default -> throw new UsageException(ERR_INVALID_OUT);
        }
    }

    /**
     * A variable specification as the API's JSON: {@code json} as written, {@code hcl} with Nomad's keys
     * ({@code path}, {@code namespace}, {@code items}, the indexes and times).
     *
     * @throws IllegalArgumentException saying what is wrong with it
     */
    static ObjectNode parseSpec(String text, String format, String filename) {
        if (format.equals("json")) {
            try {
                JsonNode node = NomadJson.mapper().readTree(text);
                if (!(node instanceof ObjectNode object)) {
                    throw new IllegalArgumentException("error unmarshaling json: not an object");
                }
                return object;
            } catch (JsonProcessingException e) {
                throw new IllegalArgumentException("error unmarshaling json: " + e.getOriginalMessage());
            }
        }
        HclFile file;
        try {
            file = HclParser.parse(text, filename);
        } catch (HclException e) {
            throw new IllegalArgumentException("error parsing hcl: " + e.getMessage());
        }
        ObjectNode spec = JsonNodeFactory.instance.objectNode();
        ObjectNode items = JsonNodeFactory.instance.objectNode();
        for (Attribute a : file.body().attributes()) {
            if (!SPEC_KEYS.contains(a.name())) {
                throw new IllegalArgumentException("error parsing hcl: invalid key \"" + a.name() + "\"");
            }
            Object value = evaluate(a);
            switch (a.name()) {
                case "namespace" -> spec.put("Namespace", String.valueOf(value));
                case "path" -> spec.put("Path", String.valueOf(value));
                case "items" -> {
                    if (!(value instanceof Map<?, ?> map)) {
                        throw new IllegalArgumentException("error parsing hcl: items must be an object");
                    }
                    map.forEach((k, v) -> items.put(String.valueOf(k), String.valueOf(v)));
                }
                default -> {
                    if (!(value instanceof Number n)) {
                        throw new IllegalArgumentException("error parsing hcl: " + a.name() + " must be integer");
                    }
                    spec.put(pascal(a.name()), n.longValue());
                }
            }
        }
        for (Block b : file.body().blocks()) {
            if (!b.type().equals("items") || !b.labels().isEmpty() || !b.body().blocks().isEmpty()) {
                throw new IllegalArgumentException("error parsing hcl: invalid key \"" + b.type() + "\"");
            }
            for (Attribute item : b.body().attributes()) {
                items.put(item.name(), String.valueOf(evaluate(item)));
            }
        }
        spec.set("Items", items);
        return spec;
    }

    private static Object evaluate(Attribute a) {
        try {
            Value value = a.evaluate(EvalContext.empty());
            Object java = value.toJava();
            return java instanceof BigDecimal d && d.stripTrailingZeros().scale() <= 0
                    ? (Object) d.longValueExact() : java;
        } catch (HclException | ArithmeticException e) {
            throw new IllegalArgumentException("error parsing hcl: " + a.name() + ": " + e.getMessage());
        }
    }

    private static String pascal(String snake) {
        StringBuilder out = new StringBuilder();
        for (String part : snake.split("_")) {
            out.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1));
        }
        return out.toString();
    }

    /** The variable in {@code format} ({@code table} excepted, which prints itself). */
    static String render(JsonNode variable, String format, String template) {
        return switch (format) {
            case "json" -> Json.indent(variable);
            case "hcl" -> hcl(variable);
            case "go-template" -> template(variable, template);
            default -> throw new IllegalArgumentException("unknown format " + format);
        };
    }

    /** Nomad's HCL rendering of a variable: the server-set fields commented, items aligned. */
    static String hcl(JsonNode v) {
        StringBuilder out = new StringBuilder();
        out.append("namespace    = ").append(Nomad.quote(v.path("Namespace").asText())).append('\n');
        out.append("path         = ").append(Nomad.quote(v.path("Path").asText())).append('\n');
        out.append("create_index = ").append(v.path("CreateIndex").asLong()).append("  # Set by server\n");
        out.append("modify_index = ").append(v.path("ModifyIndex").asLong())
                .append("  # Set by server; consulted for check-and-set\n");
        out.append("create_time  = ").append(v.path("CreateTime").asLong()).append("   # Set by server\n");
        out.append("modify_time  = ").append(v.path("ModifyTime").asLong()).append("   # Set by server\n\n");
        out.append("items = {\n");
        Map<String, String> items = items(v);
        int pad = items.keySet().stream().mapToInt(String::length).max().orElse(0);
        items.forEach((k, value) -> out.append("  ").append(" ".repeat(pad - k.length())).append(k).append(" = ")
                .append(Nomad.quote(value)).append('\n'));
        return out.append("}\n").toString();
    }

    static Map<String, String> items(JsonNode v) {
        Map<String, String> items = new TreeMap<>();
        v.path("Items").fields().forEachRemaining(e -> items.put(e.getKey(), e.getValue().asText()));
        return items;
    }

    /** Nomad's table of one variable: its metadata, then its items. */
    static void table(PrintWriter out, JsonNode v, ZoneId zone) {
        List<List<String>> meta = new ArrayList<>();
        meta.add(List.of("Namespace", v.path("Namespace").asText()));
        meta.add(List.of("Path", v.path("Path").asText()));
        meta.add(List.of("Create Time", Nomad.date(v.path("CreateTime").asLong(), zone)));
        if (v.path("CreateTime").asLong() != v.path("ModifyTime").asLong()) {
            meta.add(List.of("Modify Time", Nomad.date(v.path("ModifyTime").asLong(), zone)));
        }
        meta.add(List.of("Check Index", Long.toString(v.path("ModifyIndex").asLong())));
        Nomad.keyValues(out, meta);
        out.println();
        out.println("Items");
        List<List<String>> rows = new ArrayList<>();
        items(v).forEach((k, value) -> rows.add(List.of(k, value)));
        Nomad.keyValues(out, rows);
    }

    private static final Pattern ACTION = Pattern.compile("\\{\\{(-\\s)?\\s*(.*?)\\s*(\\s-)?}}", Pattern.DOTALL);
    private static final Pattern FIELD = Pattern.compile("(\\.[A-Za-z_][A-Za-z0-9_]*)+|\\.");
    private static final Pattern INDEX = Pattern.compile("index\\s+(\\S+)\\s+\"((?:[^\"\\\\]|\\\\.)*)\"");

    /**
     * A Go template over the variable, for what variable output needs: text, field references ({@code .Path},
     * {@code .Items.user}) and {@code index .Items "key"}, with {@code {{- -}}} trimming. Any other action is refused
     * by name rather than printed wrong.
     */
    static String template(JsonNode v, String template) {
        StringBuilder out = new StringBuilder();
        Matcher m = ACTION.matcher(template);
        int last = 0;
        while (m.find()) {
            String text = template.substring(last, m.start());
            out.append(m.group(1) != null ? text.stripTrailing() : text);
            String action = m.group(2);
            JsonNode value;
            Matcher index = INDEX.matcher(action);
            if (FIELD.matcher(action).matches()) {
                value = field(v, action);
            } else if (index.matches() && FIELD.matcher(index.group(1)).matches()) {
                value = field(v, index.group(1)).path(index.group(2).replace("\\\"", "\""));
            } else {
                throw new IllegalArgumentException("template: unsupported action {{" + action
                        + "}}: only field references and index are supported");
            }
            out.append(value.isMissingNode() || value.isNull() ? "<no value>"
                    : value.isValueNode() ? value.asText() : Json.indent(value).strip());
            last = m.end();
            if (m.group(3) != null) {
                while (last < template.length() && Character.isWhitespace(template.charAt(last))) {
                    last++;
                }
            }
        }
        return out.append(template.substring(last)).toString();
    }

    private static JsonNode field(JsonNode v, String reference) {
        JsonNode node = v;
        for (String name : reference.substring(1).split("\\.")) {
            if (!name.isEmpty()) {
                node = node.path(name);
            }
        }
        return node;
    }

    /** Nomad's report of a check-and-set conflict (on standard error), the server's variable in {@code conflict}. */
    static void casConflict(PrintWriter err, long checkIndex, JsonNode conflict, ZoneId zone) {
        long current = conflict.path("ModifyIndex").asLong();
        err.println();
        err.println("Check-and-Set conflict");
        err.println();
        err.println("    Your provided check-index (" + checkIndex + ") does not match the server-side index ("
                + current + ").");
        if (current > 0) {
            err.println("    The server-side item was last updated on "
                    + Nomad.date(conflict.path("ModifyTime").asLong(), zone) + ".");
        }
        err.println("    If you are sure you want to perform this operation, add the -force or -check-index="
                + current + " flag before the positional arguments.");
    }
}
