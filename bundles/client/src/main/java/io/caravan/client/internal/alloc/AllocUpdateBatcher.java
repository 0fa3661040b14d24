package io.caravan.client.internal.alloc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.caravan.api.endpoint.NodeEndpoint;
import io.caravan.api.model.Allocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Collects the client's allocation updates and sends them with one {@code Node.UpdateAlloc} at most every
 * {@link #INTERVAL} (Nomad's client batches likewise); a newer update of an allocation replaces the queued one.
 * A failed send is queued again (unless something newer arrived) and retried with backoff. One call in flight.
 */
public final class AllocUpdateBatcher {
    public static final Duration INTERVAL = Duration.ofMillis(200);
    static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

    private static final Logger LOG = LoggerFactory.getLogger(AllocUpdateBatcher.class);

    /** Where and as whom to send. */
    public record Target(NodeEndpoint endpoint, String nodeId, String secretId) {
    }

    private final ScheduledExecutorService scheduler;
    private final Duration interval;
    private final Supplier<Target> target;

    private final Map<String, Allocation> pending = new LinkedHashMap<>();
    private final List<CompletableFuture<Void>> flushWaiters = new ArrayList<>();
    private ScheduledFuture<?> scheduled;
    private boolean inFlight;
    private Duration backoff;

    public AllocUpdateBatcher(ScheduledExecutorService scheduler, Duration interval, Supplier<Target> target) {
        this.scheduler = scheduler;
        this.interval = interval;
        this.target = target;
        this.backoff = interval;
    }

    public synchronized void offer(Allocation update) {
        pending.put(update.id(), update);
        schedule(interval);
    }

    /** Completes once everything queued now has reached the servers. */
    public synchronized CompletableFuture<Void> flush() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        if (pending.isEmpty() && !inFlight) {
            done.complete(null);
            return done;
        }
        flushWaiters.add(done);
        schedule(Duration.ZERO);
        return done;
    }

    private void schedule(Duration delay) {
        if (inFlight) {
            return; // the answer to the call in flight schedules the next one
        }
        if (scheduled != null && !scheduled.isDone()) {
            if (scheduled.getDelay(TimeUnit.MILLISECONDS) <= delay.toMillis()) {
                return;
            }
            scheduled.cancel(false);
        }
        scheduled = scheduler.schedule(this::send, delay.toMillis(), TimeUnit.MILLISECONDS);
    }

    private synchronized void send() {
        if (inFlight || pending.isEmpty()) {
            completeWaitersIfIdle();
            return;
        }
        Target t = target.get();
        if (t == null || t.endpoint() == null) {
            scheduled = scheduler.schedule(this::send, nextBackoff().toMillis(), TimeUnit.MILLISECONDS);
            return;
        }
        List<Allocation> batch = new ArrayList<>(pending.values());
        pending.clear();
        inFlight = true;
        List<CompletableFuture<Void>> waiters = new ArrayList<>(flushWaiters);
        flushWaiters.clear();
        CompletableFuture<Long> call;
        try {
            call = t.endpoint().updateAllocs(t.nodeId(), t.secretId(), batch).toCompletableFuture();
        } catch (RuntimeException e) {
            call = CompletableFuture.failedFuture(e);
        }
        call.whenCompleteAsync((index, error) -> sent(batch, waiters, error), scheduler);
    }

    private synchronized void sent(List<Allocation> batch, List<CompletableFuture<Void>> waiters, Throwable error) {
        inFlight = false;
        if (error != null) {
            for (Allocation a : batch) {
                pending.putIfAbsent(a.id(), a);
            }
            flushWaiters.addAll(waiters);
            Duration retry = nextBackoff();
            LOG.atWarn().addKeyValue("error", String.valueOf(error.getMessage())).addKeyValue("count", batch.size())
                    .addKeyValue("retry", retry).log("failed to update allocations");
            scheduled = scheduler.schedule(this::send, retry.toMillis(), TimeUnit.MILLISECONDS);
            return;
        }
        backoff = interval;
        LOG.atDebug().addKeyValue("count", batch.size()).log("allocation updates sent");
        if (pending.isEmpty()) {
            waiters.forEach(w -> w.complete(null));
            completeWaitersIfIdle();
        } else {
            flushWaiters.addAll(waiters);
            schedule(flushWaiters.isEmpty() ? interval : Duration.ZERO);
        }
    }

    private void completeWaitersIfIdle() {
        if (pending.isEmpty() && !inFlight) {
            flushWaiters.forEach(w -> w.complete(null));
            flushWaiters.clear();
        }
    }

    private Duration nextBackoff() {
        Duration current = backoff;
        Duration doubled = backoff.multipliedBy(2);
        backoff = doubled.compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : doubled;
        return current;
    }
}
