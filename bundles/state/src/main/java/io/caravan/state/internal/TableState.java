package io.caravan.state.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.caravan.state.AggregateSpec;
import io.caravan.state.IndexSpec;
import io.caravan.state.TableSpec;

/**
 * One table as of one commit: rows by primary key, each secondary index as index key → (primary key → row), each
 * aggregate as key → total, and the Raft index of the last commit that wrote the table. Indexes cover their rows (the
 * same objects, shared), so an index scan reads no primary tree: a node's allocations are one subtree walk. Immutable.
 */
record TableState(TableSpec<Object> spec, PersistentTree<String, Object> rows,
                  Map<String, PersistentTree<String, PersistentTree<String, Object>>> indexes,
                  Map<String, PersistentTree<String, Object>> aggregates, long index) {

    @SuppressWarnings("unchecked") // rows are checked against spec.type() when written
    static TableState empty(TableSpec<?> spec) {
        TableSpec<Object> s = (TableSpec<Object>) spec;
        Map<String, PersistentTree<String, PersistentTree<String, Object>>> indexes = new HashMap<>();
        for (var index : s.indexes()) {
            indexes.put(index.name(), PersistentTree.empty());
        }
        Map<String, PersistentTree<String, Object>> aggregates = new HashMap<>();
        for (var aggregate : s.aggregates()) {
            aggregates.put(aggregate.name(), PersistentTree.empty());
        }
        return new TableState(s, PersistentTree.empty(), Map.copyOf(indexes), Map.copyOf(aggregates), 0);
    }

    /** The same contents, last written at {@code at}. */
    TableState at(long at) {
        return new TableState(spec, rows, indexes, aggregates, at);
    }

    /**
     * A table built in O(n log n) from rows sorted by primary key, as a restore reads them: the row tree is
     * built directly and each secondary index from its sorted (index key, primary key) pairs, instead of a
     * million path-copying puts.
     */
    static TableState fromSorted(TableSpec<Object> spec, List<String> ids, List<Object> rows, long index) {
        Map<String, PersistentTree<String, PersistentTree<String, Object>>> indexes = new HashMap<>();
        for (IndexSpec<Object> idx : spec.indexes()) {
            List<Object[]> pairs = new ArrayList<>();
            for (int i = 0; i < rows.size(); i++) {
                for (String key : idx.keysOf(rows.get(i))) {
                    pairs.add(new Object[] {key, ids.get(i), rows.get(i)});
                }
            }
            pairs.sort(Comparator.comparing(p -> (String) p[0])); // stable: primary keys stay ascending per key
            List<String> keys = new ArrayList<>();
            List<PersistentTree<String, Object>> sets = new ArrayList<>();
            for (int from = 0; from < pairs.size(); ) {
                String key = (String) pairs.get(from)[0];
                int to = from;
                List<String> members = new ArrayList<>();
                List<Object> memberRows = new ArrayList<>();
                while (to < pairs.size() && pairs.get(to)[0].equals(key)) {
                    members.add((String) pairs.get(to)[1]);
                    memberRows.add(pairs.get(to++)[2]);
                }
                keys.add(key);
                sets.add(PersistentTree.fromSorted(members, memberRows));
                from = to;
            }
            indexes.put(idx.name(), PersistentTree.fromSorted(keys, sets));
        }
        Map<String, PersistentTree<String, Object>> aggregates = new HashMap<>();
        for (AggregateSpec<Object, ?, ?> aggregate : spec.aggregates()) {
            aggregates.put(aggregate.name(), totals(aggregate, rows));
        }
        return new TableState(spec, PersistentTree.fromSorted(ids, rows), Map.copyOf(indexes), Map.copyOf(aggregates),
                index);
    }

    @SuppressWarnings("unchecked") // an aggregate's functions take what its own contribution function gives
    private static PersistentTree<String, Object> totals(AggregateSpec<Object, ?, ?> spec, List<Object> rows) {
        AggregateSpec<Object, Object, Object> aggregate = (AggregateSpec<Object, Object, Object>) spec;
        Map<String, Object> totals = new java.util.TreeMap<>();
        for (Object row : rows) {
            String key = aggregate.keyOf(row);
            Object contribution = key == null ? null : aggregate.contributionOf(row);
            if (contribution != null) {
                totals.put(key, aggregate.add().apply(totals.getOrDefault(key, aggregate.empty()), contribution));
            }
        }
        totals.values().removeIf(aggregate.empty()::equals);
        return PersistentTree.fromSorted(new ArrayList<>(totals.keySet()), new ArrayList<>(totals.values()));
    }

    PersistentTree<String, Object> aggregate(String name) {
        var tree = aggregates.get(name);
        if (tree == null) {
            throw new IllegalArgumentException("table " + spec.name() + " has no aggregate '" + name + "'");
        }
        return tree;
    }

    PersistentTree<String, PersistentTree<String, Object>> index(String name) {
        var tree = indexes.get(name);
        if (tree == null) {
            throw new IllegalArgumentException("table " + spec.name() + " has no index '" + name + "'");
        }
        return tree;
    }
}
