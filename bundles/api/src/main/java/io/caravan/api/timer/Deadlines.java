package io.caravan.api.timer;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@link CompletableFuture#orTimeout} and {@link CompletableFuture#completeOnTimeout} timed by a given timer (a
 * {@link SharedTimer} view) instead of the JDK's own static timer thread, which, once any future used it, lives as
 * long as the JVM. The deadline is cancelled as soon as the future completes.
 */
public final class Deadlines {
    private Deadlines() {
    }

    /** Completes {@code future} with a {@link TimeoutException} unless it completes within the timeout; returns it. */
    public static <T> CompletableFuture<T> orTimeout(CompletableFuture<T> future, long timeout, TimeUnit unit,
                                                     ScheduledExecutorService timer) {
        if (!future.isDone()) {
            cancelWhenDone(future, timer.schedule(() -> future.completeExceptionally(new TimeoutException()),
                    timeout, unit));
        }
        return future;
    }

    /** Completes {@code future} with {@code value} unless it completes within the timeout; returns it. */
    public static <T> CompletableFuture<T> completeOnTimeout(CompletableFuture<T> future, T value, long timeout,
                                                             TimeUnit unit, ScheduledExecutorService timer) {
        if (!future.isDone()) {
            cancelWhenDone(future, timer.schedule(() -> future.complete(value), timeout, unit));
        }
        return future;
    }

    /** A future that completes (with null) after the delay. */
    public static CompletableFuture<Void> after(long delay, TimeUnit unit, ScheduledExecutorService timer) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        timer.schedule(() -> done.complete(null), delay, unit);
        return done;
    }

    private static void cancelWhenDone(CompletableFuture<?> future, ScheduledFuture<?> deadline) {
        future.whenComplete((r, e) -> deadline.cancel(false));
    }
}
