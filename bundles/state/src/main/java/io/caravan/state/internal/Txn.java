package io.caravan.state.internal;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import io.caravan.state.StateSnapshot;
import io.caravan.state.StateTxn;
import io.caravan.state.TableSpec;

/** The single write transaction: working copies of the tables it touched, plus what changed for watchers. */
final class Txn implements StateTxn {

    private final MemStateStore store;
    private final Root base;
    private final long index;
    private final Thread owner;
    private final Map<String, TableWriter> writers = new HashMap<>();
    private final Changes changes;
    private boolean done;

    Txn(MemStateStore store, Root base, long index, Thread owner, boolean captureRows) {
        this.store = store;
        this.changes = new Changes(captureRows);
        this.base = base;
        this.index = index;
        this.owner = owner;
    }

    @Override
    public long index() {
        return index;
    }

    @Override
    public <T> void put(TableSpec<T> table, T row) {
        check();
        writer(table).put(table.type().cast(row), changes);
    }

    @Override
    public <T> boolean delete(TableSpec<T> table, String id) {
        check();
        return writer(table).delete(id, changes);
    }

    @Override
    public <T> Optional<T> get(TableSpec<T> table, String id) {
        check();
        TableWriter w = writers.get(table.name());
        Object row = w != null ? w.get(id) : tableState(table).rows().get(id);
        return Optional.ofNullable(table.type().cast(row));
    }

    @Override
    public StateSnapshot read() {
        check();
        return new SnapshotView(current(), null);
    }

    @Override
    public void commit() {
        check();
        done = true;
        if (changes.isEmpty()) {
            store.release(this); // nothing written: nothing to publish, no index to bump
            return;
        }
        store.publish(this, current(), changes);
    }

    @Override
    public void abort() {
        if (done) {
            return;
        }
        checkOwner();
        done = true;
        store.release(this);
    }

    @Override
    public void close() {
        abort();
    }

    /** The root this transaction would publish: written tables at this index, the others shared as they are. */
    private Root current() {
        if (writers.isEmpty()) {
            return base;
        }
        Map<String, TableState> tables = new HashMap<>(base.tables());
        boolean wrote = false;
        for (TableWriter w : writers.values()) {
            if (w.dirty()) {
                TableState t = w.freeze(index);
                tables.put(t.spec().name(), t);
                wrote = true;
            }
        }
        return wrote ? new Root(Map.copyOf(tables), index, base.generation()) : base;
    }

    private TableWriter writer(TableSpec<?> table) {
        TableState t = tableState(table);
        return writers.computeIfAbsent(table.name(), n -> new TableWriter(t));
    }

    private TableState tableState(TableSpec<?> spec) {
        TableState t = base.table(spec.name());
        if (t.spec() != spec && !t.spec().equals(spec)) {
            throw new IllegalArgumentException("table spec " + spec.name() + " is not the one the store was created with");
        }
        return t;
    }

    private void check() {
        if (done) {
            throw new IllegalStateException("transaction at index " + index + " is already finished");
        }
        checkOwner();
    }

    private void checkOwner() {
        if (Thread.currentThread() != owner) {
            throw new IllegalStateException("single writer: transaction begun by " + owner.getName()
                    + " used from " + Thread.currentThread().getName());
        }
    }
}
