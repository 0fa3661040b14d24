package io.caravan.agent.internal.config;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The keys a configuration may hold, read from a compact text file (one key per line; see
 * {@code nomad-agent.schema}). Declaring keys as data keeps validation, type conversion and merging one mechanism
 * for every key instead of code per key.
 */
public final class Schema {
    public enum Type { STRING, INT, FLOAT, BOOL, DURATION, SIZE, LIST, MAP, ANY }

    /**
     * An entry of a block: an attribute, a nested block, or a block repeated under labels. Options are the words after
     * the type ({@code port}, {@code restart}, {@code secret}, {@code merge=replace}, {@code enum=a|b},
     * {@code unsupported="why"}); a word without {@code =} maps to the empty string.
     */
    public sealed interface Key permits Attr, Block, Labelled {
        String name();

        Map<String, String> options();

        default boolean has(String option) {
            return options().containsKey(option);
        }

        /**
         * Why Caravan reads this key but does not act on it (yet), or null when it does. On a block it covers every
         * key inside.
         */
        default String unsupported() {
            return options().get("unsupported");
        }
    }

    public record Attr(String name, Type type, Map<String, String> options) implements Key {
        /** The values an {@code enum=a|b|c} key allows (compared ignoring case), or null for any value. */
        public List<String> allowed() {
            String values = options.get("enum");
            return values == null ? null : List.of(values.split("\\|"));
        }
    }

    public record Block(String name, Map<String, Key> keys, Map<String, String> options) implements Key {
        public Block(String name, Map<String, Key> keys) {
            this(name, keys, Map.of());
        }

        public Key key(String name) {
            return keys.get(name);
        }
    }

    /**
     * {@code plugin "raw_exec" { ... }}: a body per label; {@code body} is null for free-form bodies. When
     * {@code labelAttr} is set the block carries no label and is told apart by that attribute instead
     * ({@code consul { name = "other" }}), defaulting to {@code "default"}; decoded, both are a map by label.
     */
    public record Labelled(String name, Block body, String labelAttr, Map<String, String> options) implements Key {}

    private final Block root;

    private Schema(Block root) {
        this.root = root;
    }

    public Block root() {
        return root;
    }

    /** Nomad's agent configuration. */
    public static Schema nomadAgent() {
        return Holder.NOMAD_AGENT;
    }

    private static final class Holder {
        static final Schema NOMAD_AGENT = load("nomad-agent.schema");
    }

    static Schema load(String resource) {
        try (InputStream in = Schema.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing schema " + resource);
            }
            return parse(new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)).lines().toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A word, or {@code key="quoted words"}. */
    private static final Pattern WORD = Pattern.compile("[^\\s\"=]+=\"[^\"]*\"|\\S+");

    static Schema parse(List<String> lines) {
        Deque<Map<String, Key>> open = new ArrayDeque<>();
        Deque<Opened> names = new ArrayDeque<>();
        open.push(new LinkedHashMap<>());
        for (int n = 0; n < lines.size(); n++) {
            List<String> words = words(lines.get(n));
            if (words.isEmpty()) {
                continue;
            }
            String last = words.get(words.size() - 1);
            if (words.get(0).equals("}")) {
                Map<String, Key> keys = open.pop();
                Opened name = names.pop();
                Key key = name.kind() == null ? new Block(name.name(), Map.copyOf(keys), name.options())
                        : new Labelled(name.name(), new Block(name.name(), Map.copyOf(keys)),
                                name.kind().startsWith("[") ? name.kind().substring(1, name.kind().length() - 1) : null,
                                name.options());
                put(open.peek(), key, n);
            } else if (last.equals("{")) {
                open.push(new LinkedHashMap<>());
                boolean labelled = words.size() > 2 && (words.get(1).equals("*") || words.get(1).startsWith("["));
                names.push(new Opened(words.get(0), labelled ? words.get(1) : null,
                        options(words.subList(labelled ? 2 : 1, words.size() - 1), n)));
            } else if (words.size() >= 3 && words.get(1).equals("*") && words.get(2).equals("any")) {
                put(open.peek(), new Labelled(words.get(0), null, null, options(words.subList(3, words.size()), n)), n);
            } else {
                Type type = Type.valueOf(words.get(1).toUpperCase(Locale.ROOT));
                put(open.peek(), new Attr(words.get(0), type, options(words.subList(2, words.size()), n)), n);
            }
        }
        if (open.size() != 1) {
            throw new IllegalStateException("schema: unclosed block " + names.peek().name());
        }
        return new Schema(new Block("", Map.copyOf(open.pop())));
    }

    /** A block opened and not yet closed: its name, {@code *} or {@code [attr]} when labelled, its options. */
    private record Opened(String name, String kind, Map<String, String> options) {}

    private static List<String> words(String line) {
        String text = line.strip();
        boolean quoted = false;
        for (int i = 0; i < text.length(); i++) { // a # inside a quoted reason is text
            char c = text.charAt(i);
            quoted ^= c == '"';
            if (c == '#' && !quoted) {
                text = text.substring(0, i).strip();
                break;
            }
        }
        List<String> out = new ArrayList<>();
        Matcher m = WORD.matcher(text);
        while (m.find()) {
            out.add(m.group());
        }
        return out;
    }

    private static Map<String, String> options(List<String> words, int line) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String w : words) {
            int eq = w.indexOf('=');
            String value = eq < 0 ? "" : w.substring(eq + 1);
            if (value.startsWith("\"")) {
                value = value.substring(1, value.length() - 1);
            }
            if (out.put(eq < 0 ? w : w.substring(0, eq), value) != null) {
                throw new IllegalStateException("schema line " + (line + 1) + ": option " + w + " given twice");
            }
        }
        return Map.copyOf(out);
    }

    private static void put(Map<String, Key> keys, Key key, int line) {
        if (keys.put(key.name(), key) != null) {
            throw new IllegalStateException("schema line " + (line + 1) + ": duplicate key " + key.name());
        }
    }
}
