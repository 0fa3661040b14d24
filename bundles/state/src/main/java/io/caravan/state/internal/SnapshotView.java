package io.caravan.state.internal;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

import io.caravan.state.AggregateSpec;
import io.caravan.state.Codec;
import io.caravan.state.StateSnapshot;
import io.caravan.state.TableSpec;

/**
 * Read access to one {@link Root}. When it serves a blocking query it carries that run's {@link Watches} and
 * registers every read, so queries cannot forget to watch what they read.
 */
final class SnapshotView implements StateSnapshot {

    private final Root root;
    private final Watches watches; // null outside blocking queries

    SnapshotView(Root root, Watches watches) {
        this.root = root;
        this.watches = watches;
    }

    Root root() {
        return root;
    }

    @Override
    public <T> Optional<T> get(TableSpec<T> table, String id) {
        TableState t = table(table);
        if (watches != null) {
            watches.key(table.name(), id);
        }
        return Optional.ofNullable(table.type().cast(t.rows().get(id)));
    }

    @Override
    public int count(TableSpec<?> table) {
        TableState t = table(table);
        watchTable(table);
        return t.rows().size();
    }

    @Override
    public <T> Stream<T> all(TableSpec<T> table) {
        TableState t = table(table);
        watchTable(table);
        return rows(table, t.rows().iterator());
    }

    @Override
    public <T> Stream<T> reversed(TableSpec<T> table) {
        TableState t = table(table);
        watchTable(table);
        return rows(table, t.rows().descendingIterator());
    }

    @Override
    public <T> Stream<T> prefix(TableSpec<T> table, String prefix) {
        TableState t = table(table);
        if (watches != null) {
            watches.prefix(table.name(), prefix);
        }
        return stream(t.rows().iteratorFrom(prefix))
                .takeWhile(e -> e.getKey().startsWith(prefix))
                .map(e -> table.type().cast(e.getValue()));
    }

    @Override
    public <T> Stream<T> from(TableSpec<T> table, String fromId) {
        TableState t = table(table);
        watchTable(table);
        return rows(table, t.rows().iteratorFrom(fromId));
    }

    @Override
    public <T> Stream<T> reversedFrom(TableSpec<T> table, String fromId) {
        TableState t = table(table);
        watchTable(table);
        return rows(table, t.rows().descendingIteratorFrom(fromId));
    }

    @Override
    public <T> Stream<T> byIndex(TableSpec<T> table, String index, String key) {
        TableState t = table(table);
        PersistentTree<String, Object> ids = t.index(index).get(key);
        if (watches != null) {
            watches.indexKey(table.name(), index, key);
        }
        return ids == null ? Stream.empty() : lookup(table, ids);
    }

    @Override
    public <T> Stream<T> byIndexPrefix(TableSpec<T> table, String index, String prefix) {
        TableState t = table(table);
        var tree = t.index(index);
        if (watches != null) {
            watches.indexPrefix(table.name(), index, prefix);
        }
        return stream(tree.iteratorFrom(prefix))
                .takeWhile(e -> e.getKey().startsWith(prefix))
                .flatMap(e -> lookup(table, e.getValue()));
    }

    @Override
    public <T> Stream<T> byIndexRange(TableSpec<T> table, String index, String fromKey, String toKey,
                                      boolean descending) {
        var tree = table(table).index(index);
        if (descending) {
            return stream(tree.descendingIteratorFrom(toKey)).dropWhile(e -> e.getKey().compareTo(toKey) >= 0)
                    .takeWhile(e -> e.getKey().compareTo(fromKey) >= 0)
                    .flatMap(e -> lookupDescending(table, e.getValue()));
        }
        return stream(tree.iteratorFrom(fromKey)).takeWhile(e -> e.getKey().compareTo(toKey) < 0)
                .flatMap(e -> lookup(table, e.getValue()));
    }

    @Override
    @SuppressWarnings("unchecked") // the store keeps only what the aggregate's own functions produced
    public <T, A> A aggregate(TableSpec<T> table, AggregateSpec<T, ?, A> aggregate, String key) {
        TableState t = table(table);
        if (watches != null) {
            watches.indexKey(table.name(), aggregate.name(), key);
        }
        Object total = t.aggregate(aggregate.name()).get(key);
        return total == null ? aggregate.empty() : (A) total;
    }

    @Override
    public long tableIndex(String table) {
        return root.tableIndex(table);
    }

    @Override
    public long latestIndex() {
        return root.latestIndex();
    }

    @Override
    public void writeTo(OutputStream out, Codec codec) throws IOException {
        SnapshotFormat.write(root, out, codec);
    }

    private TableState table(TableSpec<?> spec) {
        TableState t = root.table(spec.name());
        if (t.spec() != spec && !t.spec().equals(spec)) {
            throw new IllegalArgumentException("table spec " + spec.name() + " is not the one the store was created with");
        }
        return t;
    }

    private void watchTable(TableSpec<?> table) {
        if (watches != null) {
            watches.table(table.name());
        }
    }

    private static <T> Stream<T> lookup(TableSpec<T> table, PersistentTree<String, Object> ids) {
        return stream(ids.iterator()).map(e -> table.type().cast(e.getValue()));
    }

    private static <T> Stream<T> lookupDescending(TableSpec<T> table, PersistentTree<String, Object> ids) {
        return stream(ids.descendingIterator()).map(e -> table.type().cast(e.getValue()));
    }

    private static <T> Stream<T> rows(TableSpec<T> table, Iterator<Map.Entry<String, Object>> it) {
        return stream(it).map(e -> table.type().cast(e.getValue()));
    }

    private static <K, V> Stream<Map.Entry<K, V>> stream(Iterator<Map.Entry<K, V>> it) {
        return StreamSupport.stream(Spliterators.spliteratorUnknownSize(it,
                Spliterator.ORDERED | Spliterator.NONNULL | Spliterator.IMMUTABLE), false);
    }
}
