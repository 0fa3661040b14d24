package io.caravan.state.internal;

import java.util.Map;

/**
 * The whole store state as of one commit: every table (with its own Raft index, i.e. the {@code index}
 * table) and the latest Raft index overall. Immutable; publishing a new root is the commit point.
 *
 * @param generation bumped by each restore, so a blocking query can tell "replaced wholesale" from
 *                   "same tables at the same indexes"
 */
record Root(Map<String, TableState> tables, long latestIndex, long generation) {

    TableState table(String name) {
        TableState t = tables.get(name);
        if (t == null) {
            throw new IllegalArgumentException("unknown table " + name);
        }
        return t;
    }

    long tableIndex(String name) {
        TableState t = tables.get(name);
        return t == null ? 0 : t.index();
    }
}
