package io.caravan.state;

import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * A running total per key of a table, kept by the store with every write as an index is: e.g. what the live
 * allocations of each node use, so a scheduler reads one value per node instead of every allocation on it.
 *
 * <p>Each row contributes {@link #contribution} (null: nothing) to the total under {@link #key}. When a write
 * replaces a row, the old row's contribution is subtracted from its key's total and the new one's added, unless
 * key and contribution are both unchanged ({@link Objects#equals}), which costs nothing. A key whose total comes back
 * to {@link #empty} (by {@code equals}) is dropped. All functions must be pure and the totals immutable. Derived, like
 * indexes: never written to snapshots, rebuilt when one is restored.
 *
 * @param name         unique among the table's aggregates
 * @param key          the key a row counts under; null leaves the row out
 * @param contribution what a row adds; null adds nothing
 * @param empty        the total of no rows, what {@link StateSnapshot#aggregate} answers for a key without any
 * @param add          the total with one more contribution
 * @param subtract     the total without one contribution that was added before
 */
public record AggregateSpec<T, C, A>(String name, Function<? super T, String> key,
                                     Function<? super T, ? extends C> contribution, A empty,
                                     BiFunction<A, ? super C, A> add, BiFunction<A, ? super C, A> subtract) {

    public AggregateSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(contribution, "contribution");
        Objects.requireNonNull(empty, "empty");
        Objects.requireNonNull(add, "add");
        Objects.requireNonNull(subtract, "subtract");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("empty aggregate name");
        }
    }

    /** The key {@code row} counts under, or null (also for a null row or a row that contributes nothing). */
    public String keyOf(T row) {
        return row == null ? null : key.apply(row);
    }

    /** What {@code row} contributes, null for nothing (also for a null row). */
    public C contributionOf(T row) {
        return row == null ? null : contribution.apply(row);
    }
}
