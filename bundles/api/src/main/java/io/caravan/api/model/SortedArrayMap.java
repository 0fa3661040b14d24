package io.caravan.api.model;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * An immutable map with string keys in ascending order, held as two arrays: what the model's records keep for their
 * maps (a million allocations each carry several). A {@code TreeMap} in an unmodifiable wrapper costs about 170 bytes
 * for one entry and 40 more per entry, plus the views it caches once iterated; this costs 56 and 16. Null values are
 * kept (a JSON {@code {"k": null}} is legal in Go); lookups are binary searches.
 */
final class SortedArrayMap<V> extends AbstractMap<String, V> {
    private final String[] keys;
    private final Object[] values;

    private SortedArrayMap(String[] keys, Object[] values) {
        this.keys = keys;
        this.values = values;
    }

    /** A sorted copy of {@code map}; keys must be non-null and distinct (as a map's are). */
    static <V> Map<String, V> copyOf(Map<String, ? extends V> map) {
        String[] keys = new String[map.size()];
        Object[] values = new Object[keys.length];
        int n = 0;
        for (Map.Entry<String, ? extends V> e : map.entrySet()) {
            keys[n++] = java.util.Objects.requireNonNull(e.getKey(), "map key");
        }
        Arrays.sort(keys);
        for (int i = 0; i < keys.length; i++) {
            values[i] = map.get(keys[i]);
        }
        return new SortedArrayMap<>(keys, values);
    }

    @Override
    public int size() {
        return keys.length;
    }

    @Override
    public boolean containsKey(Object key) {
        return key instanceof String k && Arrays.binarySearch(keys, k) >= 0;
    }

    @Override
    @SuppressWarnings("unchecked")
    public V get(Object key) {
        if (!(key instanceof String k)) {
            return null;
        }
        int i = Arrays.binarySearch(keys, k);
        return i < 0 ? null : (V) values[i];
    }

    @Override
    @SuppressWarnings("unchecked")
    public void forEach(BiConsumer<? super String, ? super V> action) {
        for (int i = 0; i < keys.length; i++) {
            action.accept(keys[i], (V) values[i]);
        }
    }

    @Override
    public Set<Map.Entry<String, V>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public int size() {
                return keys.length;
            }

            @Override
            public Iterator<Map.Entry<String, V>> iterator() {
                return new Iterator<>() {
                    private int next;

                    @Override
                    public boolean hasNext() {
                        return next < keys.length;
                    }

                    @Override
                    @SuppressWarnings("unchecked")
                    public Map.Entry<String, V> next() {
                        if (next >= keys.length) {
                            throw new NoSuchElementException();
                        }
                        int i = next++;
                        return new AbstractMap.SimpleImmutableEntry<>(keys[i], (V) values[i]);
                    }
                };
            }
        };
    }
}
