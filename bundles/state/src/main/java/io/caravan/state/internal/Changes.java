package io.caravan.state.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.caravan.state.RowChange;

/**
 * What a transaction wrote, as watch keys: per table, per index ({@code "id"} for the primary key), the keys
 * whose rows changed. For secondary indexes both the old and the new keys of a changed row are recorded, so
 * a watcher of "allocs on node A" wakes when an alloc moves from A to B.
 *
 * <p>When someone listens for changes, also the changed rows themselves, one per row however often it was written:
 * without listeners nothing is recorded.
 */
final class Changes {

    private final Map<String, Map<String, Set<String>>> byTable = new HashMap<>();
    /** Per {@code table\0key}: {before, after}; null when nobody listens. */
    private final Map<String, Object[]> rows;

    Changes(boolean captureRows) {
        this.rows = captureRows ? new LinkedHashMap<>() : null;
    }

    /** Records that the row {@code key} went from {@code before} to {@code after} (no-op unless capturing). */
    void row(String table, String key, Object before, Object after) {
        if (rows == null) {
            return;
        }
        Object[] change = rows.get(table + "\0" + key);
        if (change == null) {
            rows.put(table + "\0" + key, new Object[] {table, key, before, after});
        } else {
            change[3] = after; // keep the row as it was before the transaction
        }
    }

    /** The captured rows, in first-write order; a row inserted and deleted again in the transaction is left out. */
    List<RowChange> rowChanges() {
        if (rows == null) {
            return List.of();
        }
        List<RowChange> out = new ArrayList<>(rows.size());
        for (Object[] c : rows.values()) {
            if (c[2] != null || c[3] != null) {
                out.add(new RowChange((String) c[0], (String) c[1], c[2], c[3]));
            }
        }
        return out;
    }

    void touch(String table, String index, String key) {
        byTable.computeIfAbsent(table, t -> new HashMap<>()).computeIfAbsent(index, i -> new HashSet<>()).add(key);
    }

    boolean isEmpty() {
        return byTable.isEmpty();
    }

    Set<String> tables() {
        return byTable.keySet();
    }

    Map<String, Set<String>> keys(String table) {
        return byTable.getOrDefault(table, Map.of());
    }
}
