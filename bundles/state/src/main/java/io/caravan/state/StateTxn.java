package io.caravan.state;

import java.util.Optional;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A write transaction: the only way to change the store. There is at most one open at a time and it must be
 * used only by the thread that began it (the Raft apply thread); both rules are checked.
 *
 * <p>Writes are visible to this transaction's own reads at once and to everyone else atomically at
 * {@link #commit}. Determinism: the store reads no clock and no randomness; anything time- or ID-like is in
 * the rows the caller writes, and the Raft index is given to {@link StateStore#begin}. Values must be
 * immutable: never modify a row after putting it or after reading it, write a changed copy.
 *
 * <p>Use with try-with-resources: closing without committing aborts.
 */
@ProviderType
public interface StateTxn extends AutoCloseable {

    /** The Raft index this transaction commits at. */
    long index();

    /** Inserts or replaces the row with the same primary key, maintaining every secondary index. */
    <T> void put(TableSpec<T> table, T row);

    /** Deletes the row with this primary key; returns whether there was one. */
    <T> boolean delete(TableSpec<T> table, String id);

    /** Reads the row with this primary key, seeing this transaction's own writes. */
    <T> Optional<T> get(TableSpec<T> table, String id);

    /** A snapshot of the store as it would be if committed now (own writes included); for reads only. */
    StateSnapshot read();

    /**
     * Publishes all writes atomically, sets the index of every table written to {@link #index()} and wakes the
     * blocking queries watching what changed. A transaction that wrote nothing publishes nothing.
     */
    void commit();

    /** Discards all writes. Idempotent; a no-op after commit. */
    void abort();

    /** Aborts unless committed. */
    @Override
    void close();
}
