package io.caravan.api.model;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

/**
 * An immutable map with string keys in ascending order, held as arrays: what the model's records keep for their maps
 * (a million allocations each carry several, most of them the scores of their placement). A {@code TreeMap} in an
 * unmodifiable wrapper costs about 170 bytes for one entry and 40 more per entry, plus the views it caches once
 * iterated. Here the sorted key array is shared by every map with the same keys (a million allocations have a handful
 * of key sets), and numbers ({@code Double} values, the scores) are kept unboxed. Null values are kept (a JSON
 * {@code {"k": null}} is legal in Go); lookups are binary searches.
 */
abstract class SortedArrayMap<V> extends AbstractMap<String, V> {
    /** Key sets shared between maps: small ones only, and a bounded number of them. */
    private static final int SHARED_KEYS_MAX_SIZE = 8;
    private static final int SHARED_KEY_SETS = 4096;
    private static final Map<KeySet, String[]> SHARED = new ConcurrentHashMap<>();

    final String[] keys;

    private SortedArrayMap(String[] keys) {
        this.keys = keys;
    }

    /** A sorted copy of {@code map}; keys must be non-null (as a map's are). */
    @SuppressWarnings("unchecked")
    static <V> Map<String, V> copyOf(Map<String, ? extends V> map) {
        String[] keys = new String[map.size()];
        int n = 0;
        boolean numbers = true;
        for (Map.Entry<String, ? extends V> e : map.entrySet()) {
            keys[n++] = Objects.requireNonNull(e.getKey(), "map key");
            numbers &= e.getValue() instanceof Double;
        }
        Arrays.sort(keys);
        keys = shared(keys);
        if (numbers) {
            double[] values = new double[keys.length];
            for (int i = 0; i < keys.length; i++) {
                values[i] = (Double) map.get(keys[i]);
            }
            return (Map<String, V>) new Doubles(keys, values);
        }
        Object[] values = new Object[keys.length];
        for (int i = 0; i < keys.length; i++) {
            values[i] = map.get(keys[i]);
        }
        return new AnyValues<>(keys, values);
    }

    private static String[] shared(String[] keys) {
        if (keys.length > SHARED_KEYS_MAX_SIZE) {
            return keys;
        }
        KeySet set = new KeySet(keys);
        String[] known = SHARED.get(set);
        if (known != null) {
            return known;
        }
        if (SHARED.size() < SHARED_KEY_SETS) {
            known = SHARED.putIfAbsent(set, keys);
        }
        return known == null ? keys : known;
    }

    /** An array of keys compared by content. */
    private record KeySet(String[] keys) {
        @Override
        public boolean equals(Object o) {
            return o instanceof KeySet k && Arrays.equals(keys, k.keys);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(keys);
        }
    }

    abstract V valueAt(int i);

    @Override
    public int size() {
        return keys.length;
    }

    @Override
    public boolean containsKey(Object key) {
        return key instanceof String k && Arrays.binarySearch(keys, k) >= 0;
    }

    @Override
    public V get(Object key) {
        if (!(key instanceof String k)) {
            return null;
        }
        int i = Arrays.binarySearch(keys, k);
        return i < 0 ? null : valueAt(i);
    }

    @Override
    public void forEach(BiConsumer<? super String, ? super V> action) {
        for (int i = 0; i < keys.length; i++) {
            action.accept(keys[i], valueAt(i));
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
                    public Map.Entry<String, V> next() {
                        if (next >= keys.length) {
                            throw new NoSuchElementException();
                        }
                        int i = next++;
                        return new AbstractMap.SimpleImmutableEntry<>(keys[i], valueAt(i));
                    }
                };
            }
        };
    }

    /** Any values, nulls included. */
    private static final class AnyValues<V> extends SortedArrayMap<V> {
        private final Object[] values;

        AnyValues(String[] keys, Object[] values) {
            super(keys);
            this.values = values;
        }

        @Override
        @SuppressWarnings("unchecked")
        V valueAt(int i) {
            return (V) values[i];
        }
    }

    /** {@code Double} values, kept as {@code double}s. */
    private static final class Doubles extends SortedArrayMap<Double> {
        private final double[] values;

        Doubles(String[] keys, double[] values) {
            super(keys);
            this.values = values;
        }

        @Override
        Double valueAt(int i) {
            return values[i];
        }
    }
}
