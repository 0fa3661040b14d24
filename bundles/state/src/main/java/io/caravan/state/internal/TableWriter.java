package io.caravan.state.internal;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import io.caravan.state.AggregateSpec;
import io.caravan.state.IndexSpec;
import io.caravan.state.TableSpec;

/**
 * The mutable working copy of one table inside a transaction. It only swaps persistent-tree
 * roots, so the {@link TableState} it started from is never affected and freezing it is O(#indexes).
 * Its updates carry an edit token, so the tree nodes it created itself are changed in place by its next updates
 * rather than copied again (a plan's thousand allocations share the paths to their job's and evaluation's index
 * entries); freezing takes a new token, so a frozen state never changes.
 */
final class TableWriter {

    private final TableSpec<Object> spec;
    private PersistentTree<String, Object> rows;
    private final Map<String, PersistentTree<String, PersistentTree<String, Object>>> indexes;
    private final Map<String, PersistentTree<String, Object>> aggregates;
    private boolean dirty;
    /** Owns the tree nodes this writer created since it was last frozen. */
    private Object edit = new Object();

    TableWriter(TableState base) {
        this.spec = base.spec();
        this.rows = base.rows();
        this.indexes = new HashMap<>(base.indexes());
        this.aggregates = spec.aggregates().isEmpty() ? Map.of() : new HashMap<>(base.aggregates());
    }

    Object get(String id) {
        return rows.get(id);
    }

    /** Inserts or replaces the row with the same primary key. */
    void put(Object row, Changes changes) {
        String id = spec.idOf(row);
        Object old = rows.get(id);
        rows = rows.put(id, row, edit);
        dirty = true;
        reindex(id, old, row, changes);
        reaggregate(old, row, changes);
        changes.touch(spec.name(), IndexSpec.ID, id);
        changes.row(spec.name(), id, old, row);
    }

    boolean delete(String id, Changes changes) {
        Object old = rows.get(id);
        if (old == null) {
            return false;
        }
        rows = rows.remove(id, edit);
        dirty = true;
        reindex(id, old, null, changes);
        reaggregate(old, null, changes);
        changes.touch(spec.name(), IndexSpec.ID, id);
        changes.row(spec.name(), id, old, null);
        return true;
    }

    /** Whether anything was written: only written tables get their index bumped. */
    boolean dirty() {
        return dirty;
    }

    TableState freeze(long index) {
        edit = new Object(); // what is frozen may be read from now on: no more changes in place
        return new TableState(spec, rows, Map.copyOf(indexes), Map.copyOf(aggregates), index);
    }

    /** Moves the row's contribution from what {@code old} gave to what {@code row} gives, where that differs. */
    @SuppressWarnings("unchecked") // an aggregate's functions take what its own contribution function gives
    private void reaggregate(Object old, Object row, Changes changes) {
        for (AggregateSpec<Object, ?, ?> spec : spec.aggregates()) {
            AggregateSpec<Object, Object, Object> aggregate = (AggregateSpec<Object, Object, Object>) spec;
            String keyBefore = aggregate.keyOf(old);
            String keyAfter = aggregate.keyOf(row);
            Object before = keyBefore == null ? null : aggregate.contributionOf(old);
            Object after = keyAfter == null ? null : aggregate.contributionOf(row);
            if (before == null && after == null
                    || Objects.equals(keyBefore, keyAfter) && Objects.equals(before, after)) {
                continue; // most updates: a client's status report leaves a node's usage as it was
            }
            PersistentTree<String, Object> totals = aggregates.get(aggregate.name());
            if (before != null) {
                Object less = aggregate.subtract().apply(total(totals, aggregate, keyBefore), before);
                totals = total(totals, aggregate, keyBefore, less);
                changes.touch(spec.name(), aggregate.name(), keyBefore);
            }
            if (after != null) {
                Object more = aggregate.add().apply(total(totals, aggregate, keyAfter), after);
                totals = total(totals, aggregate, keyAfter, more);
                changes.touch(spec.name(), aggregate.name(), keyAfter);
            }
            aggregates.put(aggregate.name(), totals);
        }
    }

    private static Object total(PersistentTree<String, Object> totals, AggregateSpec<Object, Object, Object> aggregate,
                                String key) {
        Object total = totals.get(key);
        return total == null ? aggregate.empty() : total;
    }

    private PersistentTree<String, Object> total(PersistentTree<String, Object> totals,
                                                 AggregateSpec<Object, Object, Object> aggregate, String key,
                                                 Object total) {
        return aggregate.empty().equals(total) ? totals.remove(key, edit) : totals.put(key, total, edit);
    }

    private void reindex(String id, Object old, Object row, Changes changes) {
        for (IndexSpec<Object> index : spec.indexes()) {
            Set<String> before = index.keysOf(old);
            Set<String> after = index.keysOf(row);
            if (before.isEmpty() && after.isEmpty()) {
                continue;
            }
            var tree = indexes.get(index.name());
            for (String k : before) {
                if (!after.contains(k)) {
                    tree = without(tree, k, id, edit);
                }
            }
            for (String k : after) {
                tree = with(tree, k, id, row, edit); // also when the key stays: the entry holds the row itself
            }
            indexes.put(index.name(), tree);
            before.forEach(k -> changes.touch(spec.name(), index.name(), k));
            after.forEach(k -> changes.touch(spec.name(), index.name(), k));
        }
    }

    private static PersistentTree<String, PersistentTree<String, Object>> with(
            PersistentTree<String, PersistentTree<String, Object>> tree, String key, String id, Object row,
            Object edit) {
        PersistentTree<String, Object> ids = tree.get(key);
        if (ids == null) {
            ids = PersistentTree.empty();
        }
        return tree.put(key, ids.put(id, row, edit), edit);
    }

    private static PersistentTree<String, PersistentTree<String, Object>> without(
            PersistentTree<String, PersistentTree<String, Object>> tree, String key, String id, Object edit) {
        PersistentTree<String, Object> ids = tree.get(key);
        if (ids == null) {
            return tree;
        }
        ids = ids.remove(id, edit);
        return ids.isEmpty() ? tree.remove(key, edit) : tree.put(key, ids, edit);
    }
}
