package io.caravan.state;

import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * A non-unique secondary index: index key(s) of a row → the set of primary keys of the rows under it.
 *
 * <p>Single-valued ({@link #single}, e.g. allocations by node ID) or multi-valued ({@link #multi}, e.g. a
 * node by each of its drivers). A row with no key (null or empty) is simply absent from the index, as with
 * go-memdb's {@code AllowMissing}. The function must be pure: the store calls it on both the old and the
 * new row to maintain the index.
 *
 * @param name unique within its table; {@value #ID} is reserved for the primary key
 * @param keys the index keys of a row; may return null or empty
 */
public record IndexSpec<T>(String name, Function<? super T, ? extends Collection<String>> keys) {

    /** The name of the primary-key "index", as in go-memdb. */
    public static final String ID = "id";

    public IndexSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(keys, "keys");
        if (name.isEmpty() || ID.equals(name)) {
            throw new IllegalArgumentException("invalid index name: '" + name + "'");
        }
    }

    /** An index with at most one key per row; a null key leaves the row out of the index. */
    public static <T> IndexSpec<T> single(String name, Function<? super T, String> key) {
        Objects.requireNonNull(key, "key");
        return new IndexSpec<>(name, row -> {
            String k = key.apply(row);
            return k == null ? List.of() : List.of(k);
        });
    }

    /** An index with any number of keys per row. */
    public static <T> IndexSpec<T> multi(String name, Function<? super T, ? extends Collection<String>> keys) {
        return new IndexSpec<>(name, keys);
    }

    /** The distinct non-null keys of {@code row}, in the order the function gave them; empty for a null row. */
    public Set<String> keysOf(T row) {
        if (row == null) {
            return Set.of();
        }
        Collection<String> ks = keys.apply(row);
        if (ks == null || ks.isEmpty()) {
            return Set.of();
        }
        if (ks.size() == 1) { // the common single-valued case, on the hot write path: no LinkedHashSet
            String k = ks.iterator().next();
            return k == null ? Set.of() : Set.of(k);
        }
        Set<String> out = new LinkedHashSet<>();
        for (String k : ks) {
            if (k != null) {
                out.add(k);
            }
        }
        return out;
    }
}
