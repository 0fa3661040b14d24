package io.caravan.agent.internal.config;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Typed reads from a decoded configuration by dotted path ({@code "server.bootstrap_expect"}). A missing key
 * gives the caller's default; the decoder has already checked every type.
 */
public record ConfigView(Map<String, Object> values) {

    public Object get(String path) {
        Object node = values;
        for (String part : path.split("\\.")) {
            if (!(node instanceof Map<?, ?> map)) {
                return null;
            }
            node = map.get(part);
        }
        return node;
    }

    public String string(String path, String fallback) {
        Object v = get(path);
        return v == null ? fallback : v.toString();
    }

    public long integer(String path, long fallback) {
        return get(path) instanceof Long l ? l : fallback;
    }

    public boolean bool(String path) {
        return Boolean.TRUE.equals(get(path));
    }

    public Duration duration(String path, Duration fallback) {
        return get(path) instanceof Duration d ? d : fallback;
    }

    @SuppressWarnings("unchecked")
    public List<String> list(String path) {
        return get(path) instanceof List<?> l ? (List<String>) l : List.of();
    }

    @SuppressWarnings("unchecked")
    public Map<String, String> map(String path) {
        return get(path) instanceof Map<?, ?> m ? (Map<String, String>) m : Map.of();
    }

    @SuppressWarnings("unchecked")
    public Map<String, Object> block(String path) {
        return get(path) instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
    }
}
