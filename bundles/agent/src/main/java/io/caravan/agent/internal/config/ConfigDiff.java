package io.caravan.agent.internal.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What a reload changes, key by key. Keys are dotted paths down to the values a user writes: {@code log_level},
 * {@code client.meta.rack}, {@code plugin.raw_exec.config}. Keys the schema marks {@code restart} keep their
 * running value; {@link #effective} is the configuration that is then in force.
 */
public record ConfigDiff(List<String> changed, List<String> live, List<String> restartRequired,
                         ConfigView effective) {

    public static ConfigDiff between(ConfigView running, ConfigView next, Schema schema) {
        Map<String, Object> before = leaves(running.values(), schema.root());
        Map<String, Object> after = leaves(next.values(), schema.root());
        Set<String> keys = new LinkedHashSet<>(before.keySet());
        keys.addAll(after.keySet());
        List<String> changed = new ArrayList<>();
        List<String> live = new ArrayList<>();
        List<String> restart = new ArrayList<>();
        Map<String, Object> effective = deepCopy(next.values());
        for (String key : keys.stream().sorted().toList()) {
            if (Objects.equals(before.get(key), after.get(key))) {
                continue;
            }
            changed.add(key);
            if (restartScoped(key, schema.root())) {
                restart.add(key);
                setLeaf(effective, key, before.get(key));
            } else {
                live.add(key);
            }
        }
        return new ConfigDiff(List.copyOf(changed), List.copyOf(live), List.copyOf(restart),
                new ConfigView(effective));
    }

    /** Flattens a decoded configuration to its leaf values, guided by the schema. */
    static Map<String, Object> leaves(Map<String, Object> values, Schema.Block schema) {
        Map<String, Object> out = new LinkedHashMap<>();
        collect(values, schema, "", out);
        return out;
    }

    private static void collect(Map<String, Object> values, Schema.Block schema, String prefix,
                                Map<String, Object> out) {
        values.forEach((name, value) -> {
            String path = prefix + name;
            Schema.Key key = schema.key(name);
            if (key instanceof Schema.Block block) {
                collect(Decoder.asMap(value), block, path + ".", out);
            } else if (key instanceof Schema.Labelled labelled) {
                Decoder.asMap(value).forEach((label, body) -> {
                    if (labelled.body() == null) {
                        out.put(path + "." + label, body);
                    } else {
                        collect(Decoder.asMap(body), labelled.body(), path + "." + label + ".", out);
                    }
                });
            } else if (key instanceof Schema.Attr attr && attr.type() == Schema.Type.MAP) {
                Decoder.asMap(value).forEach((k, v) -> out.put(path + "." + k, v));
            } else {
                out.put(path, value);
            }
        });
    }

    private static boolean restartScoped(String path, Schema.Block root) {
        Schema.Block block = root;
        String[] parts = path.split("\\.");
        for (int i = 0; i < parts.length; i++) {
            Schema.Key key = block.key(parts[i]);
            if (key instanceof Schema.Attr attr) {
                return attr.has("restart");
            }
            if (key instanceof Schema.Block nested) {
                block = nested;
            } else if (key instanceof Schema.Labelled labelled && labelled.body() != null) {
                block = labelled.body();
                i++; // skip the label
            } else {
                return false;
            }
        }
        return false;
    }

    /** Puts a running value back (or removes the key when it had none). Restart keys are plain attributes. */
    private static void setLeaf(Map<String, Object> tree, String path, Object value) {
        String[] parts = path.split("\\.");
        Map<String, Object> at = tree;
        for (int i = 0; i < parts.length - 1; i++) {
            at = Decoder.asMap(at.computeIfAbsent(parts[i], k -> new LinkedHashMap<String, Object>()));
        }
        if (value == null) {
            at.remove(parts[parts.length - 1]);
        } else {
            at.put(parts[parts.length - 1], value);
        }
    }

    private static Map<String, Object> deepCopy(Map<String, Object> tree) {
        Map<String, Object> copy = new LinkedHashMap<>();
        tree.forEach((k, v) -> copy.put(k, v instanceof Map<?, ?> ? deepCopy(Decoder.asMap(v)) : v));
        return copy;
    }
}
