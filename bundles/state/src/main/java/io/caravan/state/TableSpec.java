package io.caravan.state;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * A table declared by the caller: its name, row type, primary key and secondary indexes.
 *
 * <p>The spec is also the typed handle used to read and write the table: keep one constant per table
 * (e.g. {@code JOBS = TableSpec.of("jobs", Job.class, j -> j.namespace() + "\0" + j.id())}) and pass it to
 * {@link StateStore#create}, {@link StateSnapshot} and {@link StateTxn}. A store accepts only the specs it
 * was created with (equal records).
 *
 * @param name       unique table name, also used in watch sets and snapshot streams
 * @param type       the (immutable) row type; writes are checked against it
 * @param primaryKey the row's primary key; must be pure and never null
 * @param indexes    secondary indexes, names unique
 * @param aggregates running totals per key ({@link AggregateSpec}), names unique
 */
public record TableSpec<T>(String name, Class<T> type, Function<? super T, String> primaryKey,
                           List<IndexSpec<T>> indexes, List<AggregateSpec<T, ?, ?>> aggregates) {

    public TableSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(primaryKey, "primaryKey");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("empty table name");
        }
        indexes = List.copyOf(indexes);
        Set<String> seen = new HashSet<>();
        for (IndexSpec<T> index : indexes) {
            if (!seen.add(index.name())) {
                throw new IllegalArgumentException("duplicate index '" + index.name() + "' in table " + name);
            }
        }
        aggregates = List.copyOf(aggregates);
        for (AggregateSpec<T, ?, ?> aggregate : aggregates) {
            if (!seen.add(aggregate.name()) || IndexSpec.ID.equals(aggregate.name())) { // names watches share
                throw new IllegalArgumentException("duplicate index or aggregate '" + aggregate.name() + "' in table "
                        + name);
            }
        }
    }

    public TableSpec(String name, Class<T> type, Function<? super T, String> primaryKey, List<IndexSpec<T>> indexes) {
        this(name, type, primaryKey, indexes, List.of());
    }

    /** A table without secondary indexes; add them with {@link #withIndex}. */
    public static <T> TableSpec<T> of(String name, Class<T> type, Function<? super T, String> primaryKey) {
        return new TableSpec<>(name, type, primaryKey, List.of(), List.of());
    }

    /** A copy of this spec with one more secondary index. */
    public TableSpec<T> withIndex(IndexSpec<T> index) {
        List<IndexSpec<T>> more = new ArrayList<>(indexes);
        more.add(index);
        return new TableSpec<>(name, type, primaryKey, more, aggregates);
    }

    /** A copy of this spec with one more aggregate. */
    public TableSpec<T> withAggregate(AggregateSpec<T, ?, ?> aggregate) {
        List<AggregateSpec<T, ?, ?>> more = new ArrayList<>(aggregates);
        more.add(aggregate);
        return new TableSpec<>(name, type, primaryKey, indexes, more);
    }

    /** The secondary index of that name, if declared. */
    public Optional<IndexSpec<T>> index(String indexName) {
        return indexes.stream().filter(i -> i.name().equals(indexName)).findFirst();
    }

    /** The primary key of {@code row}, checked to be non-null. */
    public String idOf(T row) {
        String id = primaryKey.apply(row);
        if (id == null) {
            throw new IllegalArgumentException("null primary key for a row of table " + name);
        }
        return id;
    }
}
