package io.caravan.api.model;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Null-tolerant immutable copies for the records' compact constructors. Maps are sorted by key, as Go writes them,
 * and compact ({@link SortedArrayMap}).
 */
final class Copy {
    private Copy() {
    }

    static <T> List<T> list(List<T> list) {
        return list == null ? List.of() : List.copyOf(list);
    }

    static <V> Map<String, V> map(Map<String, V> map) {
        if (map == null || map.isEmpty()) {
            return Map.of();
        }
        if (map instanceof SortedArrayMap<?>) {
            return map; // immutable already: a record copied with a builder shares it
        }
        // Unlike Map.copyOf this keeps null values (a JSON {"k": null} is legal in Go) and a stable key order.
        return SortedArrayMap.copyOf(map);
    }

    static Map<String, List<String>> multimap(Map<String, List<String>> map) {
        if (map == null || map.isEmpty()) {
            return Map.of();
        }
        TreeMap<String, List<String>> copy = new TreeMap<>();
        map.forEach((k, v) -> copy.put(k, list(v)));
        return SortedArrayMap.copyOf(copy);
    }

    /** Free-form data (task {@code Config}, raw blocks): frozen all the way down, nulls kept. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> raw(Map<String, Object> map) {
        return map == null ? Map.of() : (Map<String, Object>) freeze(map);
    }

    /** A raw block that may be absent: null stays null. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> rawOrNull(Map<String, Object> map) {
        return map == null ? null : (Map<String, Object>) freeze(map);
    }

    @SuppressWarnings("unchecked")
    static List<Object> rawList(List<Object> list) {
        return list == null ? List.of() : (List<Object>) freeze(list);
    }

    static Object freeze(Object value) {
        if (value instanceof Map<?, ?> map) {
            TreeMap<String, Object> copy = new TreeMap<>();
            map.forEach((k, v) -> copy.put(String.valueOf(k), freeze(v)));
            return SortedArrayMap.copyOf(copy);
        }
        if (value instanceof List<?> list) {
            List<Object> copy = new ArrayList<>(list.size());
            list.forEach(v -> copy.add(freeze(v)));
            return Collections.unmodifiableList(copy);
        }
        return value;
    }
}
