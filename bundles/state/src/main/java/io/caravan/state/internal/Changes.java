package io.caravan.state.internal;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * What a transaction wrote, as watch keys: per table, per index ({@code "id"} for the primary key), the keys
 * whose rows changed. For secondary indexes both the old and the new keys of a changed row are recorded, so
 * a watcher of "allocs on node A" wakes when an alloc moves from A to B.
 */
final class Changes {

    private final Map<String, Map<String, Set<String>>> byTable = new HashMap<>();

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
