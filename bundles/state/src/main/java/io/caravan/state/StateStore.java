package io.caravan.state;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;

import org.osgi.annotation.versioning.ProviderType;

import io.caravan.state.internal.MemStateStore;

/**
 * The in-memory MVCC state store (Nomad's {@code state.StateStore} over go-memdb).
 *
 * <p>Reads are lock-free on immutable snapshots; writes go through one {@link StateTxn} at a time, opened by
 * the Raft apply thread; blocking queries park as futures, so ten thousand long-polls cost no threads.
 *
 * <pre>{@code
 * StateStore store = StateStore.create(List.of(ALLOCS), timer, executor);
 * try (StateTxn txn = store.begin(raftIndex)) { txn.put(ALLOCS, alloc); txn.commit(); }
 * store.query(minIndex, Duration.ofMinutes(5), (s, ws) ->
 *         new Indexed<>(s.byIndex(ALLOCS, "node", nodeId).toList(), s.tableIndex("allocs")))
 *     .thenAccept(r -> respond(r.value(), r.index()));
 * }</pre>
 */
@ProviderType
public interface StateStore {

    /**
     * Creates an empty store over the given tables.
     *
     * @param tables    the tables, names unique
     * @param scheduler fires blocking-query deadlines; owned by the caller. Deadlines of queries that complete
     *                  early are cancelled, so a {@code ScheduledThreadPoolExecutor} should
     *                  {@code setRemoveOnCancelPolicy(true)} to drop them at once rather than at expiry
     * @param executor  re-runs woken blocking queries and completes their futures; owned by the caller
     */
    static StateStore create(List<TableSpec<?>> tables, ScheduledExecutorService scheduler, Executor executor) {
        return new MemStateStore(tables, scheduler, executor);
    }

    /** The tables this store was created with. */
    List<TableSpec<?>> tables();

    /** The current state: O(1), one volatile read. */
    StateSnapshot snapshot();

    /** The Raft index of the last commit or restore. */
    long latestIndex();

    /**
     * Opens the single write transaction.
     *
     * @param raftIndex the Raft log index being applied; must exceed {@link #latestIndex()}
     * @throws IllegalStateException    if a transaction (or a restore) is already open
     * @throws IllegalArgumentException if {@code raftIndex} does not advance
     */
    StateTxn begin(long raftIndex);

    /**
     * A blocking query (STYLE.md §5). Runs {@code q} on the current snapshot at once, on the calling thread.
     * If {@code minIndex <= 0} or the result's index exceeds {@code minIndex}, the stage completes with it.
     * Otherwise the query parks, without a thread, until a commit writes something it watched (or a restore)
     * and then re-runs on a fresh snapshot on the executor; when {@code maxWait} has elapsed it completes with
     * the latest result. Jitter is the caller's business. A query that throws fails the stage.
     */
    <R> CompletionStage<Indexed<R>> query(long minIndex, Duration maxWait, StateQuery<R> q);

    /**
     * Replaces the whole state with a stream written by {@link StateSnapshot#writeTo}: the stream is read and
     * verified in full first, then the new root is published atomically and every parked query is woken.
     * On a corrupt, truncated or mismatched stream it throws and leaves the store unchanged.
     *
     * @throws IllegalStateException if a transaction is open (restore is a write)
     */
    void restore(InputStream in, Codec codec) throws IOException;

    /**
     * Registers a listener for the rows each commit changes (change capture, from which Nomad derives its event
     * stream). Transactions begun after this call report to it.
     *
     * @return closing it unregisters the listener
     */
    AutoCloseable addChangeListener(ChangeListener listener);

    /**
     * {@link #restore(InputStream, Codec)} as a write at {@code raftIndex}: the whole state is replaced by the stream's
     * (verified in full first), and every table's index and the latest index become {@code raftIndex}, since every table
     * changed at that entry. For restoring a snapshot through the log, whose own indexes may lie ahead of this log.
     *
     * @throws IllegalArgumentException if {@code raftIndex} does not advance past {@link #latestIndex()}
     * @throws IllegalStateException if a transaction is open
     * @since 1.1
     */
    void restore(InputStream in, Codec codec, long raftIndex) throws IOException;
}
