package io.caravan.api.timer;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The {@link SharedTimer}: one daemon thread (started with the first task) that runs every timer view's tasks, and
 * for each worker view a single thread that exists only while that view has work (and {@link #WORKER_IDLE} after).
 */
public final class SharedTimers implements SharedTimer, AutoCloseable {
    /** How long a worker view's thread waits for more work before it ends. */
    public static final Duration WORKER_IDLE = Duration.ofSeconds(5);
    /** A view drops the futures of finished tasks once it tracks this many (and twice as many as it kept). */
    private static final int PURGE_FLOOR = 64;

    private final ScheduledThreadPoolExecutor timer;
    private final Duration workerIdle;

    /** The agent's: a thread named {@code caravan-timer}. */
    public SharedTimers() {
        this("caravan-timer", WORKER_IDLE);
    }

    public SharedTimers(String threadName, Duration workerIdle) {
        this.timer = new ScheduledThreadPoolExecutor(1, daemon(threadName));
        timer.setRemoveOnCancelPolicy(true);   // many deadlines are cancelled long before they are due
        timer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        this.workerIdle = workerIdle;
    }

    @Override
    public ScheduledExecutorService timer(String owner) {
        return new View(owner, null);
    }

    @Override
    public ScheduledExecutorService worker(String owner) {
        ThreadPoolExecutor worker = new ThreadPoolExecutor(1, 1, workerIdle.toMillis(), TimeUnit.MILLISECONDS,
                new LinkedBlockingQueue<>(), daemon(owner));
        worker.allowCoreThreadTimeOut(true);
        return new View(owner, worker);
    }

    /** Tasks waiting on the shared thread, of every view. */
    public int queued() {
        return timer.getQueue().size();
    }

    /** Stops the shared thread: every view's pending tasks are dropped (worker views keep what they already run). */
    @Override
    public void close() {
        timer.shutdownNow();
    }

    private static ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    /**
     * One owner's executor. Its tasks go to the shared timer; a worker view's are handed from there to its own
     * thread. Shutting it down cancels its pending tasks only; the tasks running then finish (shutdownNow interrupts
     * a worker view's, as it would an executor of the owner's own; the shared thread is never interrupted).
     */
    private final class View extends AbstractExecutorService implements ScheduledExecutorService {
        private final String owner;
        private final ThreadPoolExecutor worker;   // null: tasks run on the shared thread
        private final Set<Future<?>> pending = ConcurrentHashMap.newKeySet();
        private final AtomicInteger running = new AtomicInteger();
        private volatile int purgeAt = PURGE_FLOOR;
        private volatile boolean shutdown;

        View(String owner, ThreadPoolExecutor worker) {
            this.owner = owner;
            this.worker = worker;
        }

        @Override
        public void execute(Runnable command) {
            admit();
            if (worker != null) {
                worker.execute(counted(command));
            } else {
                // Not tracked (a store's wake-up hands thousands of these at once): a view shut down skips them.
                timer.execute(() -> {
                    if (!shutdown) {
                        counted(command).run();
                    }
                });
            }
        }

        @Override
        public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
            return schedule(java.util.concurrent.Executors.callable(command), delay, unit);
        }

        @Override
        public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
            admit();
            if (worker == null) {
                return track(timer.schedule(counted(callable), delay, unit));
            }
            FutureTask<V> task = new FutureTask<>(callable);
            Handoff<V> handoff = new Handoff<>(task);
            handoff.trigger = timer.schedule(() -> handOff(task), delay, unit);
            return track(handoff);
        }

        @Override
        public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period,
                                                      TimeUnit unit) {
            admit();
            Periodic p = new Periodic(command);
            p.future = track(timer.scheduleAtFixedRate(p, initialDelay, period, unit));
            return p.future;
        }

        @Override
        public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay,
                                                         TimeUnit unit) {
            admit();
            Periodic p = new Periodic(command);
            p.future = track(timer.scheduleWithFixedDelay(p, initialDelay, delay, unit));
            return p.future;
        }

        /** One turn of a periodic task: inline on a timer view; on a worker view handed off, or skipped if busy. */
        private final class Periodic implements Runnable {
            private final Runnable command;
            private final AtomicBoolean busy = new AtomicBoolean();
            volatile ScheduledFuture<?> future;

            Periodic(Runnable command) {
                this.command = command;
            }

            @Override
            public void run() {
                if (worker == null) {
                    counted(command).run();   // an exception ends the task, as in any scheduled executor
                    return;
                }
                if (!busy.compareAndSet(false, true)) {
                    return;
                }
                try {
                    worker.execute(counted(() -> {
                        try {
                            command.run();
                        } catch (RuntimeException | Error e) {
                            ScheduledFuture<?> f = future;
                            if (f != null) {
                                f.cancel(false);   // as a scheduled executor suppresses the later runs
                            }
                            throw e;
                        } finally {
                            busy.set(false);
                        }
                    }));
                } catch (RejectedExecutionException shutDown) {
                    busy.set(false);
                }
            }
        }

        private void handOff(FutureTask<?> task) {
            try {
                worker.execute(counted(task));
            } catch (RejectedExecutionException shutDown) {
                task.cancel(false);
            }
        }

        private Runnable counted(Runnable r) {
            return () -> {
                running.incrementAndGet();
                try {
                    r.run();
                } finally {
                    running.decrementAndGet();
                }
            };
        }

        private <V> Callable<V> counted(Callable<V> c) {
            return () -> {
                running.incrementAndGet();
                try {
                    return c.call();
                } finally {
                    running.decrementAndGet();
                }
            };
        }

        private void admit() {
            if (shutdown) {
                throw new RejectedExecutionException(owner + " is shut down");
            }
        }

        private <F extends Future<?>> F track(F future) {
            pending.add(future);
            if (shutdown) {
                future.cancel(false);   // shut down between admit() and here
            }
            if (pending.size() > purgeAt) {
                pending.removeIf(Future::isDone);
                purgeAt = Math.max(PURGE_FLOOR, pending.size() * 2);
            }
            return future;
        }

        @Override
        public void shutdown() {
            shutdown = true;
            pending.forEach(f -> f.cancel(false));
            pending.clear();
            if (worker != null) {
                worker.shutdown();
            }
        }

        @Override
        public List<Runnable> shutdownNow() {
            shutdown();
            if (worker != null) {
                worker.shutdownNow();
            }
            return List.of();
        }

        @Override
        public boolean isShutdown() {
            return shutdown;
        }

        @Override
        public boolean isTerminated() {
            return shutdown && running.get() == 0 && (worker == null || worker.isTerminated());
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
            long deadline = System.nanoTime() + unit.toNanos(timeout);
            while (!isTerminated()) {
                if (System.nanoTime() - deadline >= 0) {
                    return false;
                }
                Thread.sleep(5);
            }
            return true;
        }

        @Override
        public String toString() {
            return owner + (worker == null ? " (shared timer)" : " (worker)");
        }
    }

    /** A worker view's one-shot: due when its trigger on the shared timer is; done when its run on the worker is. */
    private static final class Handoff<V> implements ScheduledFuture<V> {
        private final FutureTask<V> task;
        volatile ScheduledFuture<?> trigger;

        Handoff(FutureTask<V> task) {
            this.task = task;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            ScheduledFuture<?> t = trigger;
            return t == null ? 0 : t.getDelay(unit);
        }

        @Override
        public int compareTo(Delayed other) {
            return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            ScheduledFuture<?> t = trigger;
            if (t != null) {
                t.cancel(false);
            }
            return task.cancel(mayInterruptIfRunning);
        }

        @Override
        public boolean isCancelled() {
            return task.isCancelled();
        }

        @Override
        public boolean isDone() {
            return task.isDone();
        }

        @Override
        public V get() throws InterruptedException, ExecutionException {
            return task.get();
        }

        @Override
        public V get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
            return task.get(timeout, unit);
        }
    }
}
