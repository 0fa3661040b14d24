package io.caravan.state.internal;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicReference;

import io.caravan.state.ChangeListener;
import io.caravan.state.Codec;
import io.caravan.state.Indexed;
import io.caravan.state.RowChange;
import io.caravan.state.StateQuery;
import io.caravan.state.StateSnapshot;
import io.caravan.state.StateStore;
import io.caravan.state.StateTxn;
import io.caravan.state.TableSpec;

/**
 * The in-memory store: one volatile {@link Root}, replaced wholesale by each commit or restore.
 *
 * <p>Readers never lock: a snapshot is the root they read. Writers are serialised by a single writer slot
 * (the thread owning the open transaction or restore), which is checked rather than waited for: two
 * concurrent writers are a bug in the caller (only the Raft apply thread writes), not a condition to queue.
 * Nothing here reads a clock or randomness, so applying the same log yields the same state on every server.
 */
public final class MemStateStore implements StateStore {

    private final List<TableSpec<?>> tables;
    private final ScheduledExecutorService scheduler;
    private final Executor executor;
    private final WatchRegistry registry = new WatchRegistry();
    private final AtomicReference<Object> writer = new AtomicReference<>();
    private final List<ChangeListener> listeners = new CopyOnWriteArrayList<>();
    private volatile Root root;

    public MemStateStore(List<TableSpec<?>> tables, ScheduledExecutorService scheduler, Executor executor) {
        this.tables = List.copyOf(tables);
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.executor = Objects.requireNonNull(executor, "executor");
        Map<String, TableState> states = new HashMap<>();
        for (TableSpec<?> spec : this.tables) {
            if (states.put(spec.name(), TableState.empty(spec)) != null) {
                throw new IllegalArgumentException("duplicate table " + spec.name());
            }
        }
        this.root = new Root(Map.copyOf(states), 0, 0);
    }

    @Override
    public List<TableSpec<?>> tables() {
        return tables;
    }

    @Override
    public StateSnapshot snapshot() {
        return new SnapshotView(root, null);
    }

    @Override
    public long latestIndex() {
        return root.latestIndex();
    }

    @Override
    public StateTxn begin(long raftIndex) {
        Thread me = Thread.currentThread();
        acquire(me);
        Root base = root;
        if (raftIndex <= base.latestIndex()) {
            writer.set(null);
            throw new IllegalArgumentException("raft index " + raftIndex + " does not advance past " + base.latestIndex());
        }
        Txn txn = new Txn(this, base, raftIndex, me, !listeners.isEmpty());
        writer.set(txn);
        return txn;
    }

    @Override
    public <R> CompletionStage<Indexed<R>> query(long minIndex, Duration maxWait, StateQuery<R> q) {
        Objects.requireNonNull(maxWait, "maxWait");
        Objects.requireNonNull(q, "q");
        return new BlockingQuery<>(this, executor, q, minIndex).start(maxWait, scheduler);
    }

    @Override
    public void restore(InputStream in, Codec codec) throws IOException {
        Root restored = SnapshotFormat.read(in, codec, tables, 0); // verified in full before we touch anything
        Thread me = Thread.currentThread();
        acquire(me);
        try {
            // The new generation tells parked queries that everything was replaced, even at equal indexes.
            root = new Root(restored.tables(), restored.latestIndex(), root.generation() + 1);
        } finally {
            writer.set(null);
        }
        wake(registry.collectAll());
        for (ChangeListener listener : listeners) {
            listener.restored(root.latestIndex());
        }
    }

    @Override
    public AutoCloseable addChangeListener(ChangeListener listener) {
        Objects.requireNonNull(listener, "listener");
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }

    @Override
    public void restore(InputStream in, Codec codec, long raftIndex) throws IOException {
        if (raftIndex <= root.latestIndex()) {
            throw new IllegalArgumentException("raft index " + raftIndex + " does not advance past " + root.latestIndex());
        }
        Root restored = SnapshotFormat.read(in, codec, tables, 0);
        Map<String, TableState> reindexed = new HashMap<>();
        restored.tables().forEach((name, t) -> reindexed.put(name, t.at(raftIndex)));
        Thread me = Thread.currentThread();
        acquire(me);
        try {
            root = new Root(Map.copyOf(reindexed), raftIndex, root.generation() + 1);
        } finally {
            writer.set(null);
        }
        wake(registry.collectAll());
        for (ChangeListener listener : listeners) {
            listener.restored(raftIndex); // an operator's restore replaces everything too (event subscribers end)
        }
    }

    /** Number of parked blocking queries; for tests and metrics. */
    public int parkedQueries() {
        return registry.size();
    }

    // --- for the transaction and blocking queries ---------------------------------------------------------------

    Root root() {
        return root;
    }

    WatchRegistry registry() {
        return registry;
    }

    void publish(Txn txn, Root next, Changes changes) {
        if (writer.get() != txn) {
            throw new IllegalStateException("transaction is not the current writer");
        }
        root = next; // the commit point; registry.collect() below runs after it (see WatchRegistry)
        writer.set(null);
        wake(registry.collect(changes));
        if (!listeners.isEmpty()) {
            List<RowChange> rows = changes.rowChanges();
            if (!rows.isEmpty()) {
                // Still on the committing thread, so listeners hear commits in order and before the next one.
                for (ChangeListener listener : listeners) {
                    listener.committed(txn.index(), rows);
                }
            }
        }
    }

    void release(Txn txn) {
        writer.compareAndSet(txn, null);
    }

    /** Whether the current root differs from {@code seen} in anything {@code watches} may care about. */
    boolean changedSince(Root seen, Watches watches) {
        Root now = root;
        if (now == seen) {
            return false;
        }
        if (now.generation() != seen.generation()) {
            return true;
        }
        for (String table : watches.allTables()) {
            if (now.tableIndex(table) != seen.tableIndex(table)) {
                return true;
            }
        }
        return false;
    }

    private void acquire(Thread me) {
        // The slot holds the thread while beginning/restoring, then the Txn: either way, occupied means a writer is open.
        if (!writer.compareAndSet(null, me)) {
            throw new IllegalStateException("single writer: a write transaction or restore is already open ("
                    + Thread.currentThread().getName() + " tried to open another)");
        }
    }

    private static void wake(List<WatchRegistry.Waiter> woken) {
        woken.forEach(w -> w.wake.run());
    }
}
