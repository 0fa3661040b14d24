package io.caravan.server.internal;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.Evaluation;

/**
 * Coalesces clients' allocation updates for a short window into one Raft entry (Nomad batches them every 50 ms):
 * with thousands of nodes each reporting a few allocations, one entry per call would make the log the bottleneck.
 * Each caller's stage completes with the index of the entry that carried its update.
 */
final class AllocUpdateBatcher implements AutoCloseable {
    static final Duration WINDOW = Duration.ofMillis(50);

    private record Pending(Command.NodeAllocs update, List<Evaluation> evals, CompletableFuture<Long> done) {}

    private final RaftWrites writes;
    private final Clock clock;
    private final ScheduledExecutorService timer;
    private List<Pending> batch = new ArrayList<>();   // guarded by this

    AllocUpdateBatcher(RaftWrites writes, Clock clock) {
        this.writes = writes;
        this.clock = clock;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "caravan-alloc-updates");
            t.setDaemon(true);
            return t;
        });
    }

    CompletionStage<Long> add(String nodeId, List<Allocation> allocs, List<Evaluation> evals) {
        Pending p = new Pending(new Command.NodeAllocs(nodeId, allocs), evals, new CompletableFuture<>());
        synchronized (this) {
            batch.add(p);
            if (batch.size() == 1) {
                timer.schedule(this::flush, WINDOW.toMillis(), TimeUnit.MILLISECONDS);
            }
        }
        return p.done();
    }

    private void flush() {
        List<Pending> sending;
        synchronized (this) {
            sending = batch;
            batch = new ArrayList<>();
        }
        if (sending.isEmpty()) {
            return;
        }
        List<Command.NodeAllocs> nodes = new ArrayList<>(sending.size());
        List<Evaluation> evals = new ArrayList<>();
        for (Pending p : sending) {
            nodes.add(p.update());
            evals.addAll(p.evals());
        }
        writes.submit(new Command.AllocClientUpdate(nodes, clock.millis() * 1_000_000L, evals))
                .whenComplete((result, error) -> sending.forEach(p -> {
                    if (error != null) {
                        p.done().completeExceptionally(error);
                    } else {
                        p.done().complete(result.index());
                    }
                }));
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
