package io.caravan.client.internal.alloc;

import java.util.concurrent.Executor;

import io.caravan.client.internal.state.ClientStateStore.PersistedAlloc;
import io.caravan.client.internal.state.ClientStateStore;

/**
 * Writes one allocation's state off the scheduler thread (the writes are fsync'd), always the latest snapshot and
 * one write at a time, so an older snapshot never overwrites a newer one and a delete is never undone by a write
 * still in flight.
 */
final class AllocStateWriter {
    private final ClientStateStore store;
    private final Executor executor;
    private final String allocId;

    private PersistedAlloc pending;
    private Runnable afterDelete;
    private boolean deleteRequested;
    private boolean deleted;
    private boolean draining;

    AllocStateWriter(ClientStateStore store, Executor executor, String allocId) {
        this.store = store;
        this.executor = executor;
        this.allocId = allocId;
    }

    synchronized void save(PersistedAlloc snapshot) {
        if (deleteRequested) {
            return;
        }
        pending = snapshot;
        drain();
    }

    /** Deletes the state after any write in flight; later saves are ignored. */
    synchronized void delete(Runnable then) {
        deleteRequested = true;
        pending = null;
        afterDelete = then;
        drain();
    }

    private void drain() {
        if (!draining) {
            draining = true;
            executor.execute(this::writeAll);
        }
    }

    private void writeAll() {
        while (true) {
            PersistedAlloc next;
            boolean delete;
            Runnable then;
            synchronized (this) {
                next = pending;
                pending = null;
                delete = deleteRequested && !deleted;
                then = delete ? afterDelete : null;
                if (next == null && !delete) {
                    draining = false;
                    return;
                }
                deleted |= delete;
            }
            if (next != null) {
                store.saveAlloc(next);
            }
            if (delete) {
                store.deleteAlloc(allocId);
                if (then != null) {
                    then.run();
                }
            }
        }
    }
}
