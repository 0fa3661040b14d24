package io.caravan.api.timer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SharedTimersTest {
    private final SharedTimers timers = new SharedTimers("test-timer", Duration.ofMillis(200));

    @AfterEach
    void close() {
        timers.close();
    }

    @Test
    void timerViewsShareOneThread() throws Exception {
        Set<String> threads = ConcurrentHashMap.newKeySet();
        CountDownLatch ran = new CountDownLatch(3);
        for (String owner : new String[] {"a", "b", "c"}) {
            timers.timer(owner).schedule(() -> {
                threads.add(Thread.currentThread().getName());
                ran.countDown();
            }, 10, TimeUnit.MILLISECONDS);
        }
        assertTrue(ran.await(5, TimeUnit.SECONDS));
        assertEquals(Set.of("test-timer"), threads);
    }

    @Test
    void shuttingDownAViewCancelsOnlyItsTasks() throws Exception {
        ScheduledExecutorService mine = timers.timer("mine");
        ScheduledExecutorService other = timers.timer("other");
        AtomicInteger mineRuns = new AtomicInteger();
        CountDownLatch otherRuns = new CountDownLatch(5);
        mine.scheduleAtFixedRate(mineRuns::incrementAndGet, 0, 5, TimeUnit.MILLISECONDS);
        ScheduledFuture<?> later = mine.schedule(mineRuns::incrementAndGet, 1, TimeUnit.HOURS);
        other.scheduleWithFixedDelay(otherRuns::countDown, 0, 5, TimeUnit.MILLISECONDS);
        Thread.sleep(30);
        mine.shutdownNow();
        assertTrue(mine.awaitTermination(5, TimeUnit.SECONDS));
        int after = mineRuns.get();
        assertTrue(later.isCancelled());
        assertThrows(RejectedExecutionException.class, () -> mine.execute(() -> { }));
        assertTrue(otherRuns.await(5, TimeUnit.SECONDS), "the other owner's task still runs");
        Thread.sleep(30);
        assertEquals(after, mineRuns.get(), "no run after shutdownNow");
        assertFalse(other.isShutdown());
    }

    @Test
    void workerRunsOffTheTimerThreadAndEndsWhenIdle() throws Exception {
        ScheduledExecutorService worker = timers.worker("test-worker");
        CountDownLatch blocked = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        worker.execute(() -> {
            blocked.countDown();
            awaitQuietly(release);
        });
        assertTrue(blocked.await(5, TimeUnit.SECONDS));
        // the worker is blocked, the shared timer is not
        CountDownLatch timerRan = new CountDownLatch(1);
        timers.timer("t").schedule(timerRan::countDown, 1, TimeUnit.MILLISECONDS);
        assertTrue(timerRan.await(5, TimeUnit.SECONDS));
        release.countDown();

        ScheduledFuture<String> result = worker.schedule(() -> Thread.currentThread().getName(), 5,
                TimeUnit.MILLISECONDS);
        assertEquals("test-worker", result.get(5, TimeUnit.SECONDS));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (threadNamed("test-worker") && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertFalse(threadNamed("test-worker"), "the idle worker thread ended");
        // and comes back for the next task
        assertEquals("test-worker", worker.submit(() -> Thread.currentThread().getName()).get(5, TimeUnit.SECONDS));
    }

    @Test
    void aWorkerPeriodicTaskSkipsTurnsWhileItRuns() throws Exception {
        ScheduledExecutorService worker = timers.worker("slow");
        AtomicInteger concurrent = new AtomicInteger();
        AtomicInteger maxConcurrent = new AtomicInteger();
        CountDownLatch runs = new CountDownLatch(3);
        worker.scheduleAtFixedRate(() -> {
            maxConcurrent.accumulateAndGet(concurrent.incrementAndGet(), Math::max);
            sleepQuietly(30);
            concurrent.decrementAndGet();
            runs.countDown();
        }, 0, 2, TimeUnit.MILLISECONDS);
        assertTrue(runs.await(5, TimeUnit.SECONDS));
        worker.shutdownNow();
        assertEquals(1, maxConcurrent.get());
        assertEquals(0, timers.queued(), "its turns are no longer queued");
    }

    @Test
    void deadlinesRunOnTheGivenTimerAndGoWhenTheFutureCompletes() throws Exception {
        ScheduledExecutorService timer = timers.timer("deadlines");
        java.util.concurrent.CompletableFuture<String> late = Deadlines.orTimeout(
                new java.util.concurrent.CompletableFuture<>(), 20, TimeUnit.MILLISECONDS, timer);
        java.util.concurrent.ExecutionException e = assertThrows(java.util.concurrent.ExecutionException.class,
                () -> late.get(5, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof java.util.concurrent.TimeoutException);
        assertEquals("default", Deadlines.completeOnTimeout(new java.util.concurrent.CompletableFuture<>(),
                "default", 20, TimeUnit.MILLISECONDS, timer).get(5, TimeUnit.SECONDS));
        java.util.concurrent.CompletableFuture<String> quick = Deadlines.orTimeout(
                new java.util.concurrent.CompletableFuture<>(), 1, TimeUnit.HOURS, timer);
        assertEquals(1, timers.queued());
        quick.complete("ok");
        assertEquals(0, timers.queued(), "the deadline of a completed future is cancelled");
        Deadlines.after(10, TimeUnit.MILLISECONDS, timer).get(5, TimeUnit.SECONDS);
    }

    private static boolean threadNamed(String name) {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals(name) && t.isAlive());
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
