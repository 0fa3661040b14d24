package io.caravan.agent.internal.config;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.caravan.agent.UnsupportedKey;
import io.caravan.api.GoDuration;

/**
 * Checks a {@link Node} tree against a {@link Schema} and turns it into plain values: String, Long, Double,
 * Boolean, {@link Duration}, {@code List<String>}, {@code Map<String,String>}, nested maps for blocks, and the
 * raw structure for free-form keys. Conversion is as lenient as Nomad's (a number where a string is wanted, a
 * quoted number or bool); anything else is a problem reported with its position. All problems are collected.
 *
 * <p>A block may be written once, several times (repeated blocks merge in order), or as a list of objects, which
 * is how HCL's JSON form writes blocks.
 */
public final class Decoder {
    static final Set<String> LOG_LEVELS = Set.of("TRACE", "DEBUG", "INFO", "WARN", "ERROR", "ERR", "OFF");
    /** A number and an optional unit: {@code 4096}, {@code 512KiB}, {@code 1.5 GB}, {@code 2m}. */
    private static final Pattern SIZE = Pattern.compile("(\\d+(?:\\.\\d+)?) ?((?:[kmgt](?:i?b)?|b)?)",
            Pattern.CASE_INSENSITIVE);

    private final List<ConfigException.Problem> problems = new ArrayList<>();
    private final List<UnsupportedKey> unsupported = new ArrayList<>();

    private Decoder() {
    }

    /** A source's values, and the keys it sets that the schema marks {@code unsupported}, in source order. */
    public record Decoded(Map<String, Object> values, List<UnsupportedKey> unsupported) {}

    public static Map<String, Object> decode(Node.Obj source, Schema.Block schema) throws ConfigException {
        return read(source, schema).values();
    }

    public static Decoded read(Node.Obj source, Schema.Block schema) throws ConfigException {
        Decoder d = new Decoder();
        Map<String, Object> out = d.block(source, schema, "", null);
        if (!d.problems.isEmpty()) {
            throw new ConfigException(d.problems);
        }
        return new Decoded(out, List.copyOf(d.unsupported));
    }

    /**
     * @param unsupported why the enclosing block is not acted on (null when it is): every key set inside it is
     *     reported, or the block itself when it sets none
     */
    private Map<String, Object> block(Node.Obj obj, Schema.Block schema, String path, String unsupported) {
        Map<String, Object> out = new LinkedHashMap<>();
        Map<String, Pos> seenAttrs = new LinkedHashMap<>();
        for (Node.Entry e : obj.entries()) {
            String full = path.isEmpty() ? e.key() : path + "." + e.key();
            Schema.Key key = schema.key(e.key());
            if (key == null) {
                problem(e.keyPos(), "unknown key \"" + full + "\"");
                continue;
            }
            String why = key.unsupported() != null ? key.unsupported() : unsupported;
            int reported = this.unsupported.size();
            decodeEntry(e, key, full, why, out, seenAttrs);
            if (why != null && this.unsupported.size() == reported) {
                this.unsupported.add(new UnsupportedKey(full, e.keyPos().toString(), why));
            }
        }
        return out;
    }

    private void decodeEntry(Node.Entry e, Schema.Key key, String full, String why, Map<String, Object> out,
                             Map<String, Pos> seenAttrs) {
        if (key instanceof Schema.Attr attr) {
            Pos earlier = seenAttrs.put(e.key(), e.keyPos());
            if (earlier != null) {
                problem(e.keyPos(), "\"" + full + "\" is set twice (first at " + earlier + ")");
                return;
            }
            Object value = attr(e.value(), attr, full);
            if (value != null) {
                out.put(e.key(), value);
            }
        } else if (key instanceof Schema.Block nested) {
            for (Node.Obj body : bodies(e.value(), full)) {
                Map<String, Object> decoded = block(body, nested, full, why);
                if (!decoded.isEmpty()) { // an empty block means what no block means
                    out.merge(e.key(), decoded, (a, b) -> Merger.merge(asMap(a), asMap(b), nested));
                }
            }
        } else if (((Schema.Labelled) key).labelAttr() != null) {
            Schema.Labelled keyed = (Schema.Labelled) key;
            Map<String, Object> byName = asMap(out.computeIfAbsent(e.key(), k -> new LinkedHashMap<>()));
            for (Node.Obj body : bodies(e.value(), full)) {
                Map<String, Object> decoded = block(body, keyed.body(), full, why);
                Object label = decoded.getOrDefault(keyed.labelAttr(), "default");
                byName.merge(label.toString(), decoded, (a, b) -> Merger.merge(asMap(a), asMap(b), keyed.body()));
            }
        } else {
            Schema.Labelled labelled = (Schema.Labelled) key;
            for (Node.Obj labels : bodies(e.value(), full)) {
                Map<String, Object> byLabel = asMap(out.computeIfAbsent(e.key(), k -> new LinkedHashMap<>()));
                for (Node.Entry l : labels.entries()) {
                    String labelPath = full + "." + l.key();
                    for (Node.Obj body : bodies(l.value(), labelPath)) {
                        Object decoded = labelled.body() == null ? raw(body)
                                : block(body, labelled.body(), labelPath, why);
                        byLabel.merge(l.key(), decoded, (a, b) -> labelled.body() == null ? b
                                : Merger.merge(asMap(a), asMap(b), labelled.body()));
                    }
                }
            }
        }
    }

    @SuppressWarnings("unchecked")
    public static Map<String, Object> asMap(Object o) {
        return (Map<String, Object>) o;
    }

    /** A block written as an object, or as a list of objects. */
    private List<Node.Obj> bodies(Node node, String path) {
        if (node instanceof Node.Obj obj) {
            return List.of(obj);
        }
        if (node instanceof Node.Arr arr) {
            List<Node.Obj> out = new ArrayList<>();
            for (Node item : arr.items()) {
                if (item instanceof Node.Obj obj) {
                    out.add(obj);
                } else {
                    problem(item.pos(), "\"" + path + "\" must be a block, not " + Node.describe(item));
                }
            }
            return out;
        }
        problem(node.pos(), "\"" + path + "\" must be a block, not " + Node.describe(node));
        return List.of();
    }

    private Object attr(Node node, Schema.Attr attr, String path) {
        return switch (attr.type()) {
            case STRING -> string(node, attr, path);
            case INT -> integer(node, attr, path);
            case FLOAT -> number(node, path);
            case BOOL -> bool(node, path);
            case DURATION -> duration(node, path);
            case SIZE -> size(node, path);
            case LIST -> list(node, path);
            case MAP -> map(node, path);
            case ANY -> unwrapBlock(raw(node));
        };
    }

    private String string(Node node, Schema.Attr attr, String path) {
        String s = scalarText(node, path, "a string");
        if (s != null && attr.has("loglevel") && !LOG_LEVELS.contains(s.toUpperCase(java.util.Locale.ROOT))) {
            problem(node.pos(), "invalid \"" + path + "\" \"" + s
                    + "\": valid log levels are TRACE, DEBUG, INFO, WARN, ERROR, OFF");
            return null;
        }
        List<String> allowed = attr.allowed();
        if (s != null && allowed != null && allowed.stream().noneMatch(a -> a.equalsIgnoreCase(s))) {
            problem(node.pos(), "invalid \"" + path + "\" \"" + s + "\": must be one of " + String.join(", ", allowed));
            return null;
        }
        return s;
    }

    private Long integer(Node node, Schema.Attr attr, String path) {
        String text = scalarText(node, path, "a whole number");
        if (text == null) {
            return null;
        }
        long value;
        try {
            value = new BigDecimal(text.trim()).longValueExact();
        } catch (NumberFormatException | ArithmeticException e) {
            problem(node.pos(), "\"" + path + "\" must be a whole number, not \"" + text + "\"");
            return null;
        }
        if (attr.has("port") && (value < 1 || value > 65535)) {
            problem(node.pos(), "\"" + path + "\" must be a port (1-65535), not " + value);
            return null;
        }
        return value;
    }

    private Double number(Node node, String path) {
        String text = scalarText(node, path, "a number");
        try {
            return text == null ? null : Double.valueOf(text.trim());
        } catch (NumberFormatException e) {
            problem(node.pos(), "\"" + path + "\" must be a number, not \"" + text + "\"");
            return null;
        }
    }

    private Boolean bool(Node node, String path) {
        if (node instanceof Node.Scalar s && s.value() instanceof Boolean b) {
            return b;
        }
        String text = scalarText(node, path, "a bool");
        if (text == null) {
            return null;
        }
        return switch (text.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "true", "1", "t" -> true;
            case "false", "0", "f" -> false;
            default -> {
                problem(node.pos(), "\"" + path + "\" must be true or false, not \"" + text + "\"");
                yield null;
            }
        };
    }

    private Duration duration(Node node, String path) {
        if (node instanceof Node.Scalar s && s.value() instanceof BigDecimal nanos) {
            return Duration.ofNanos(nanos.longValue()); // Go's time.Duration as a number is nanoseconds
        }
        String text = scalarText(node, path, "a duration");
        if (text == null) {
            return null;
        }
        try {
            return GoDuration.parse(text.trim());
        } catch (IllegalArgumentException e) {
            problem(node.pos(), "\"" + path + "\": " + e.getMessage() + " (write e.g. \"30s\", \"5m\", \"1h30m\")");
            return null;
        }
    }

    private Long size(Node node, String path) {
        String text = scalarText(node, path, "a size");
        if (text == null) {
            return null;
        }
        long bytes = parseSize(text);
        if (bytes <= 0) {
            problem(node.pos(), "\"" + path + "\": invalid size \"" + text
                    + "\" (write a number of bytes or e.g. \"512KiB\", \"2MiB\", \"1MB\")");
            return null;
        }
        return bytes;
    }

    /**
     * Bytes in a size as go-humanize reads one (Nomad's sizes): a number, optionally with a unit, any case, a space
     * allowed between: B; KB, MB, GB, TB (and K, M, G, T) in powers of 1000; KiB, MiB, GiB, TiB in powers of 1024.
     *
     * @return the whole bytes, or -1 when the text is not a size or is too large
     */
    static long parseSize(String text) {
        Matcher m = SIZE.matcher(text.trim());
        if (!m.matches()) {
            return -1;
        }
        String unit = m.group(2).toLowerCase(Locale.ROOT);
        int power = unit.isEmpty() ? 0 : "bkmgt".indexOf(unit.charAt(0));
        BigDecimal base = BigDecimal.valueOf(unit.length() == 3 && unit.charAt(1) == 'i' ? 1024 : 1000);
        try {
            return new BigDecimal(m.group(1)).multiply(power <= 0 ? BigDecimal.ONE : base.pow(power))
                    .setScale(0, RoundingMode.DOWN).longValueExact();
        } catch (ArithmeticException e) {
            return -1;
        }
    }

    private List<String> list(Node node, String path) {
        List<Node> items = node instanceof Node.Arr arr ? arr.items() : List.of(node);
        List<String> out = new ArrayList<>();
        for (Node item : items) {
            String s = scalarText(item, path, "a list of strings");
            if (s != null) {
                out.add(s);
            }
        }
        return List.copyOf(out);
    }

    private Map<String, String> map(Node node, String path) {
        Map<String, String> out = new LinkedHashMap<>();
        for (Node.Obj obj : bodies(node, path)) {
            for (Node.Entry e : obj.entries()) {
                String s = scalarText(e.value(), path + "." + e.key(), "a string");
                if (s != null) {
                    out.put(e.key(), s);
                }
            }
        }
        return out;
    }

    /** HCL's JSON form writes a block as a list holding one object. */
    private static Object unwrapBlock(Object value) {
        return value instanceof List<?> l && l.size() == 1 && l.get(0) instanceof Map<?, ?> ? l.get(0) : value;
    }

    /** Free-form values (plugin config): objects become maps, blocks written as lists of one object unwrap. */
    static Object raw(Node node) {
        if (node instanceof Node.Scalar s) {
            return s.value();
        }
        if (node instanceof Node.Arr arr) {
            List<Object> out = new ArrayList<>();
            arr.items().forEach(i -> out.add(raw(i)));
            return out;
        }
        Map<String, Object> out = new LinkedHashMap<>();
        for (Node.Entry e : ((Node.Obj) node).entries()) {
            Object value = unwrapBlock(raw(e.value()));
            out.merge(e.key(), value, (a, b) -> a instanceof Map<?, ?> && b instanceof Map<?, ?>
                    ? mergeRaw(asMap(a), asMap(b)) : b);
        }
        return out;
    }

    private static Map<String, Object> mergeRaw(Map<String, Object> a, Map<String, Object> b) {
        Map<String, Object> out = new LinkedHashMap<>(a);
        out.putAll(b);
        return out;
    }

    /** A scalar as text (numbers without trailing zeros, as Go prints them); null and a problem otherwise. */
    private String scalarText(Node node, String path, String wanted) {
        if (node instanceof Node.Scalar s && s.value() != null) {
            Object v = s.value();
            return v instanceof BigDecimal d ? d.stripTrailingZeros().toPlainString() : v.toString();
        }
        problem(node.pos(), "\"" + path + "\" must be " + wanted + ", not " + Node.describe(node));
        return null;
    }

    private void problem(Pos pos, String message) {
        problems.add(new ConfigException.Problem(pos, message));
    }
}
