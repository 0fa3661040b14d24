package io.caravan.client.internal.hooks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.caravan.api.model.Node;

/**
 * Nomad's runtime interpolation of {@code ${...}} in task config and env values: task environment variables
 * ({@code ${NOMAD_ALLOC_ID}}, or {@code ${env["X"]}}), node attributes ({@code ${attr.kernel.name}}), node meta
 * ({@code ${meta.rack}}) and node fields ({@code ${node.unique.id}}, {@code ${node.datacenter}},
 * {@code ${node.unique.name}}, {@code ${node.class}}, {@code ${node.pool}}). Unknown references stay as written,
 * as Nomad leaves them.
 */
public final class Interpolator {
    private static final Pattern REF = Pattern.compile("\\$\\{([^}]+)}");
    private static final Pattern ENV_INDEX = Pattern.compile("env\\[\"([^\"]+)\"]");

    private final Map<String, String> env;
    private final Node node;

    public Interpolator(Map<String, String> env, Node node) {
        this.env = env;
        this.node = node;
    }

    public String interpolate(String text) {
        if (text == null || !text.contains("${")) {
            return text;
        }
        Matcher m = REF.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String value = lookup(m.group(1).trim());
            m.appendReplacement(out, Matcher.quoteReplacement(value == null ? m.group() : value));
        }
        m.appendTail(out);
        return out.toString();
    }

    /** Every string in a free-form value (maps, lists), interpolated; other values unchanged. */
    public Object interpolateValue(Object value) {
        if (value instanceof String s) {
            return interpolate(s);
        }
        if (value instanceof Map<?, ?> map) {
            Map<String, Object> out = new LinkedHashMap<>();
            map.forEach((k, v) -> out.put(String.valueOf(k), interpolateValue(v)));
            return out;
        }
        if (value instanceof List<?> list) {
            List<Object> out = new ArrayList<>(list.size());
            list.forEach(v -> out.add(interpolateValue(v)));
            return out;
        }
        return value;
    }

    @SuppressWarnings("unchecked")
    public Map<String, Object> interpolateMap(Map<String, Object> map) {
        return (Map<String, Object>) interpolateValue(map);
    }

    private String lookup(String ref) {
        Matcher envIndex = ENV_INDEX.matcher(ref);
        if (envIndex.matches()) {
            return env.get(envIndex.group(1));
        }
        if (env.containsKey(ref)) {
            return env.get(ref);
        }
        if (node == null) {
            return null;
        }
        if (ref.startsWith("attr.")) {
            return node.attributes().get(ref.substring("attr.".length()));
        }
        if (ref.startsWith("meta.")) {
            return node.meta().get(ref.substring("meta.".length()));
        }
        switch (ref) {
            case "node.unique.id":
                return node.id();
            case "node.unique.name":
                return node.name();
            case "node.datacenter":
                return node.datacenter();
            case "node.class":
                return node.nodeClass();
            case "node.pool":
                return node.nodePool();
            default:
                return null;
        }
    }
}
