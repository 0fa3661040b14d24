package io.caravan.api.timer;

import java.util.concurrent.ScheduledExecutorService;

/**
 * The agent's shared timer (an OSGi service). Each owner takes a view of it: a {@link ScheduledExecutorService}
 * whose {@code shutdown}/{@code shutdownNow} cancel that owner's tasks only, never the shared thread, so code written
 * for an executor of its own moves onto the shared one unchanged.
 */
public interface SharedTimer {
    /**
     * A view whose tasks run on the one shared timer thread, one at a time. They must be short and must never
     * block (no waiting on a future, a lock held across I/O, a Raft write or a network call): a task that blocks
     * delays every other owner's timers. Work that may block belongs on a {@link #worker} view.
     *
     * @param owner names the owner (for diagnostics)
     */
    ScheduledExecutorService timer(String owner);

    /**
     * A view for an owner whose tasks may block: the shared timer starts them, and they run one at a time, in order,
     * on a thread of the owner's own (named {@code owner}) that ends after a few seconds with nothing to do, so an
     * owner with rare work costs no thread while idle. A periodic task whose previous run has not finished skips
     * that turn; the future of a one-shot {@code schedule(Runnable, ...)} completes once its run has finished.
     *
     * @param owner the worker thread's name
     */
    ScheduledExecutorService worker(String owner);
}
