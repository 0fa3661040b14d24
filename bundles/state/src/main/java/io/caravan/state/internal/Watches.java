package io.caravan.state.internal;

import java.util.HashSet;
import java.util.Objects;
import java.util.Set;

import io.caravan.state.IndexSpec;
import io.caravan.state.WatchSet;

/** The watch set of one run of a blocking query: plain collections, filled on the query's thread. */
final class Watches implements WatchSet {

    /** A watched (table, index, key) or, in {@link #prefixes}, (table, index, prefix). */
    record Key(String table, String index, String key) {
    }

    final Set<String> tables = new HashSet<>();
    final Set<Key> keys = new HashSet<>();
    final Set<Key> prefixes = new HashSet<>();

    @Override
    public void table(String table) {
        tables.add(Objects.requireNonNull(table, "table"));
    }

    @Override
    public void key(String table, String id) {
        keys.add(new Key(table, IndexSpec.ID, Objects.requireNonNull(id, "id")));
    }

    @Override
    public void prefix(String table, String prefix) {
        prefixes.add(new Key(table, IndexSpec.ID, Objects.requireNonNull(prefix, "prefix")));
    }

    @Override
    public void indexKey(String table, String index, String key) {
        keys.add(new Key(table, index, Objects.requireNonNull(key, "key")));
    }

    @Override
    public void indexPrefix(String table, String index, String prefix) {
        prefixes.add(new Key(table, index, Objects.requireNonNull(prefix, "prefix")));
    }

    /** Every table named by any watch: a change of one of their indexes may concern this query. */
    Set<String> allTables() {
        Set<String> all = new HashSet<>(tables);
        keys.forEach(k -> all.add(k.table()));
        prefixes.forEach(k -> all.add(k.table()));
        return all;
    }
}
