package io.caravan.agent.internal.config;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The keys a configuration may hold, read from a compact text file (one key per line; see
 * {@code nomad-agent.schema}). Declaring keys as data keeps validation, type conversion and merging one mechanism
 * for every key instead of code per key.
 */
public final class Schema {
    public enum Type { STRING, INT, FLOAT, BOOL, DURATION, SIZE, LIST, MAP, ANY }

    /** An entry of a block: an attribute, a nested block, or a block repeated under labels. */
    public sealed interface Key permits Attr, Block, Labelled {
        String name();
    }

    public record Attr(String name, Type type, Set<String> options) implements Key {
        boolean has(String option) {
            return options.contains(option);
        }
    }

    public record Block(String name, Map<String, Key> keys) implements Key {
        public Key key(String name) {
            return keys.get(name);
        }
    }

    /**
     * {@code plugin "raw_exec" { ... }}: a body per label; {@code body} is null for free-form bodies. When
     * {@code labelAttr} is set the block carries no label and is told apart by that attribute instead
     * ({@code consul { name = "other" }}), defaulting to {@code "default"}; decoded, both are a map by label.
     */
    public record Labelled(String name, Block body, String labelAttr) implements Key {}

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

    static Schema parse(List<String> lines) {
        Deque<Map<String, Key>> open = new ArrayDeque<>();
        Deque<String[]> names = new ArrayDeque<>(); // {name, labelled?}
        open.push(new LinkedHashMap<>());
        for (int n = 0; n < lines.size(); n++) {
            String line = lines.get(n).strip();
            int hash = line.indexOf('#');
            if (hash >= 0) {
                line = line.substring(0, hash).strip();
            }
            if (line.isEmpty()) {
                continue;
            }
            String[] words = line.split("\\s+");
            if (words[0].equals("}")) {
                Map<String, Key> keys = open.pop();
                String[] name = names.pop();
                Block block = new Block(name[0], Map.copyOf(keys));
                Key key = name[1] == null ? block : new Labelled(name[0], block,
                        name[1].startsWith("[") ? name[1].substring(1, name[1].length() - 1) : null);
                put(open.peek(), key, n);
            } else if (words[words.length - 1].equals("{")) {
                open.push(new LinkedHashMap<>());
                String kind = words.length == 3 && (words[1].equals("*") || words[1].startsWith("[")) ? words[1] : null;
                names.push(new String[] {words[0], kind});
            } else if (words.length == 3 && words[1].equals("*") && words[2].equals("any")) {
                put(open.peek(), new Labelled(words[0], null, null), n);
            } else {
                Type type = Type.valueOf(words[1].toUpperCase(java.util.Locale.ROOT));
                put(open.peek(), new Attr(words[0], type,
                        Set.of(java.util.Arrays.copyOfRange(words, 2, words.length))), n);
            }
        }
        if (open.size() != 1) {
            throw new IllegalStateException("schema: unclosed block " + names.peek()[0]);
        }
        return new Schema(new Block("", Map.copyOf(open.pop())));
    }

    private static void put(Map<String, Key> keys, Key key, int line) {
        if (keys.put(key.name(), key) != null) {
            throw new IllegalStateException("schema line " + (line + 1) + ": duplicate key " + key.name());
        }
    }
}
