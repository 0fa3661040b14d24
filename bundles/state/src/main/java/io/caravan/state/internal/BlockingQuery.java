package io.caravan.state.internal;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.caravan.state.Indexed;
import io.caravan.state.StateQuery;

/**
 * One blocking query (Nomad's {@code blockingRPC} loop) as a small state machine instead of a thread:
 * run → done, or run → park (a {@link WatchRegistry.Waiter}) → woken by a commit → run again on the executor;
 * the deadline completes it with the latest result.
 */
final class BlockingQuery<R> {

    private final MemStateStore store;
    private final Executor executor;
    private final StateQuery<R> query;
    private final long minIndex;
    private final CompletableFuture<Indexed<R>> result = new CompletableFuture<>();
    private volatile Indexed<R> last;
    private volatile WatchRegistry.Waiter parked;

    BlockingQuery(MemStateStore store, Executor executor, StateQuery<R> query, long minIndex) {
        this.store = store;
        this.executor = executor;
        this.query = query;
        this.minIndex = minIndex;
    }

    CompletableFuture<Indexed<R>> start(Duration maxWait, ScheduledExecutorService scheduler) {
        run();
        if (!result.isDone()) {
            if (maxWait.isZero() || maxWait.isNegative()) {
                expire();
            } else {
                ScheduledFuture<?> deadline = scheduler.schedule(this::expire, maxWait.toNanos(), TimeUnit.NANOSECONDS);
                result.whenComplete((r, e) -> deadline.cancel(false));
            }
        }
        return result;
    }

    private void run() {
        if (result.isDone()) {
            return;
        }
        Root root = store.root();
        Watches watches = new Watches();
        Indexed<R> r;
        try {
            r = Objects.requireNonNull(query.run(new SnapshotView(root, watches), watches),
                    "blocking query returned null");
        } catch (Throwable t) {
            result.completeExceptionally(t);
            return;
        }
        last = r;
        if (minIndex <= 0 || r.index() > minIndex) {
            result.complete(r);
            return;
        }
        WatchRegistry.Waiter w = new WatchRegistry.Waiter(watches, this::wake);
        parked = w;
        store.registry().add(w);
        // A commit published after our snapshot but before add() has notified without us: look at the root
        // again now that we are registered, and if it moved on under anything we watch, run again at once.
        if (store.changedSince(root, watches) && store.registry().remove(w)) {
            wake();
        } else if (result.isDone()) {
            store.registry().remove(w); // expired meanwhile: do not leave a dead waiter behind
        }
    }

    private void wake() {
        try {
            executor.execute(this::run);
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(e);
        }
    }

    private void expire() {
        // Unpark before completing, so whoever sees the result also sees the waiter gone; then once more after,
        // for a re-run that parked in between (it checks isDone() after parking, so one of us removes it).
        unpark();
        result.complete(last);
        unpark();
    }

    private void unpark() {
        WatchRegistry.Waiter w = parked;
        if (w != null) {
            store.registry().remove(w);
        }
    }
}
