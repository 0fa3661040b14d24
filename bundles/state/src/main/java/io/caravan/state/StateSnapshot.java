package io.caravan.state;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Optional;
import java.util.stream.Stream;

import org.osgi.annotation.versioning.ProviderType;

/**
 * An immutable, consistent view of every table as of one commit. Cheap to take and to keep: it shares its
 * structure with the live store. Safe to read from any thread.
 *
 * <p>Streams are lazy, ordered and may be abandoned at any point (pagination: {@code limit(perPage + 1)}; the
 * primary key of the extra row is Nomad's {@code next_token}, fed back to {@link #from}). Inside a
 * {@link StateQuery}, every read registers the matching watch: {@link #get} a key watch, {@link #prefix} a
 * prefix watch, {@link #byIndex}/{@link #byIndexPrefix} index watches, whole-table scans a table watch.
 */
@ProviderType
public interface StateSnapshot {

    /** The row with this primary key. */
    <T> Optional<T> get(TableSpec<T> table, String id);

    /** Number of rows in the table. Registers a table watch. */
    int count(TableSpec<?> table);

    /** All rows, ascending by primary key. */
    <T> Stream<T> all(TableSpec<T> table);

    /** All rows, descending by primary key. */
    <T> Stream<T> reversed(TableSpec<T> table);

    /** Rows whose primary key starts with {@code prefix}, ascending (Nomad's {@code prefix} parameter). */
    <T> Stream<T> prefix(TableSpec<T> table, String prefix);

    /** Rows with primary key ≥ {@code fromId}, ascending (Nomad's {@code next_token}). */
    <T> Stream<T> from(TableSpec<T> table, String fromId);

    /** Rows with primary key ≤ {@code fromId}, descending (Nomad's {@code next_token} with {@code reverse}). */
    <T> Stream<T> reversedFrom(TableSpec<T> table, String fromId);

    /** Rows indexed under exactly {@code key} in the secondary index {@code index}, ascending by primary key. */
    <T> Stream<T> byIndex(TableSpec<T> table, String index, String key);

    /**
     * Rows indexed under a key starting with {@code prefix}, ordered by index key then primary key; a
     * multi-valued row appears once per matching key.
     */
    <T> Stream<T> byIndexPrefix(TableSpec<T> table, String index, String prefix);

    /**
     * Rows under the index keys from {@code fromKey} (inclusive) to {@code toKey} (exclusive), by index key then
     * primary key; {@code descending} reverses that order. With keys that sort by a row's change (e.g. node ID and its
     * zero-padded modify index) it reads what changed since a point without reading the rest. Inside a
     * {@link StateQuery} it registers no watch (a range has no key to watch): watch what covers it, e.g. another
     * index's key, through the {@link WatchSet}.
     */
    <T> Stream<T> byIndexRange(TableSpec<T> table, String index, String fromKey, String toKey, boolean descending);

    /**
     * The total of the table's aggregate under {@code key}: {@link AggregateSpec#empty()} when no row counts under it.
     * Inside a {@link StateQuery} it registers a watch on that total.
     */
    <T, A> A aggregate(TableSpec<T> table, AggregateSpec<T, ?, A> aggregate, String key);

    /** The Raft index of the last commit that wrote the table, 0 if none. */
    long tableIndex(String table);

    /** The Raft index of the last commit that wrote anything (or of the restored snapshot). */
    long latestIndex();

    /**
     * Writes every table and the index table to {@code out}: header, per-table sections, index table, CRC32
     * trailer. Throws on any failure (a half-written snapshot must never be recorded as good). Does not
     * close {@code out}.
     */
    void writeTo(OutputStream out, Codec codec) throws IOException;
}
