package io.caravan.state;

import java.util.Objects;

/**
 * One row a committed transaction changed (go-memdb's {@code Change}): its table, primary key and the row before and
 * after the transaction. {@code before} is null for an insert, {@code after} for a delete. Several writes of the same
 * row in one transaction are one change, from the row as it was to the row as it ended.
 */
public record RowChange(String table, String key, Object before, Object after) {

    public RowChange {
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(key, "key");
        if (before == null && after == null) {
            throw new IllegalArgumentException("a change has a row before or after it");
        }
    }

    public boolean created() {
        return before == null;
    }

    public boolean deleted() {
        return after == null;
    }

    /** The row as it is now, or as it was last when deleted. */
    public Object row() {
        return after != null ? after : before;
    }
}
