package io.caravan.server.internal;

import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.Node;
import io.caravan.consensus.Replicator;
import io.caravan.metrics.Timing;
import io.caravan.scheduler.Plan;
import io.caravan.scheduler.PlanResult;
import io.caravan.state.StateSnapshot;
import io.caravan.state.StateStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's plan applier: plans from all workers, one at a time, each re-checked node by node against the latest
 * state (the node still exists and takes placements, the allocations fit) and the accepted part committed through
 * Raft in one entry. When a node is rejected the result carries a refresh index, and the worker retries the rest on
 * fresher state — Nomad's optimistic concurrency between schedulers.
 */
final class PlanApplier implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PlanApplier.class);
    /** A plan marks allocations unknown on a node that is back: the scheduler must look again. */
    private static final String NO_LONGER_DISCONNECTED = "node is no longer disconnected";
    /** The largest plan written as one log entry: a quarter of what the log takes, for headroom. */
    static final int PART_BYTES = Replicator.MAX_COMMAND_BYTES / 4;

    private record Pending(Plan plan, CompletableFuture<PlanResult> result) {}

    private final StateStore store;
    private final RaftWrites writes;
    private final Clock clock;
    private final LinkedBlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
    private final Thread thread;
    private volatile boolean closed;
    /** Nomad's {@code nomad.nomad.plan.evaluate} (checking a plan against the state) and {@code plan.apply}. */
    final Timing evaluate = new Timing();
    final Timing applied = new Timing();

    PlanApplier(StateStore store, RaftWrites writes, Clock clock) {
        this.store = store;
        this.writes = writes;
        this.clock = clock;
        this.thread = new Thread(this::run, "caravan-plan-applier");
        thread.setDaemon(true);
        thread.start();
    }

    CompletableFuture<PlanResult> submit(Plan plan) {
        CompletableFuture<PlanResult> result = new CompletableFuture<>();
        if (closed) {
            result.completeExceptionally(new IllegalStateException("plan applier stopped: leadership lost"));
            return result;
        }
        queue.add(new Pending(plan, result));
        return result;
    }

    private void run() {
        while (!closed) {
            Pending next;
            try {
                next = queue.poll(500, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                break;
            }
            if (next == null) {
                continue;
            }
            try {
                next.result().complete(apply(next.plan()));
            } catch (RuntimeException e) {
                LOG.atWarn().addKeyValue("eval_id", next.plan().evalId()).setCause(e).log("plan not applied");
                next.result().completeExceptionally(e);
            }
        }
        Pending left;
        while ((left = queue.poll()) != null) {
            left.result().completeExceptionally(new IllegalStateException("plan applier stopped: leadership lost"));
        }
    }

    /** Plans waiting to be applied ({@code nomad.nomad.plan.queue_depth}). */
    int queueDepth() {
        return queue.size();
    }

    private PlanResult apply(Plan plan) {
        long started = System.nanoTime();
        StateSnapshot snapshot = store.snapshot();
        Verified v = verify(snapshot, plan, clock.millis() * 1_000_000L);
        long index = snapshot.latestIndex();
        long verified = System.nanoTime();
        evaluate.recordNanos(verified - started);
        int placed = 0;
        if (v.command() != null) {
            placed = v.command().placed().size();
            index = commit(v.command());
        }
        applied.recordNanos(System.nanoTime() - started);
        if (LOG.isDebugEnabled()) {
            LOG.atDebug().addKeyValue("eval_id", plan.evalId()).addKeyValue("placed", placed)
                    .addKeyValue("verify_ms", (verified - started) / 1_000_000)
                    .addKeyValue("commit_ms", (System.nanoTime() - verified) / 1_000_000).log("plan applied");
        }
        return new PlanResult(v.updates(), v.placements(), index, v.rejected() ? index : 0);
    }

    /** What of a plan still holds: the accepted stops and placements by node, and the command that commits them. */
    record Verified(Map<String, List<Allocation>> updates, Map<String, List<Allocation>> placements,
                    boolean rejected, Command.PlanApply command) {
    }

    /** Re-checks a plan node by node against {@code snapshot} (the latest state); pure, so tests can drive it. */
    static Verified verify(StateSnapshot snapshot, Plan plan, long nowNanos) {
        Map<String, List<Allocation>> acceptedUpdates = new LinkedHashMap<>();
        Map<String, List<Allocation>> acceptedPlacements = new LinkedHashMap<>();
        boolean rejected = false;
        boolean disconnectOutdated = false;
        Set<String> nodes = new java.util.LinkedHashSet<>(plan.nodeUpdate().keySet());
        nodes.addAll(plan.nodeAllocation().keySet());
        for (String nodeId : nodes) {
            List<Allocation> stops = plan.nodeUpdate().getOrDefault(nodeId, List.of());
            List<Allocation> places = plan.nodeAllocation().getOrDefault(nodeId, List.of());
            String reason = places.isEmpty() ? null : rejection(snapshot, nodeId, stops, places);
            if (reason != null) {
                rejected = true;
                disconnectOutdated |= reason == NO_LONGER_DISCONNECTED;
                LOG.atDebug().addKeyValue("eval_id", plan.evalId()).addKeyValue("node_id", nodeId)
                        .addKeyValue("reason", reason).log("plan rejected for node");
                continue;
            }
            if (!stops.isEmpty()) {
                acceptedUpdates.put(nodeId, stops);
            }
            if (!places.isEmpty()) {
                acceptedPlacements.put(nodeId, places);
            }
        }
        if (rejected && (plan.allAtOnce() || disconnectOutdated)) {
            // Replacements for allocations that would no longer be unknown are not wanted: the whole plan waits
            // for the scheduler to look again at the node that came back.
            acceptedUpdates.clear();
            acceptedPlacements.clear();
        }
        boolean deploymentChanges = plan.deployment() != null || !plan.deploymentUpdates().isEmpty();
        Command.PlanApply command = acceptedUpdates.isEmpty() && acceptedPlacements.isEmpty() && !deploymentChanges
                ? null
                : new Command.PlanApply(plan.evalId(), plan.job(), flatten(acceptedUpdates, PlanApplier::stopStub),
                flatten(acceptedPlacements, a -> a.toBuilder().job(null).build()), nowNanos, plan.deployment(),
                plan.deploymentUpdates());
        return new Verified(acceptedUpdates, acceptedPlacements, rejected, command);
    }

    /**
     * Commits an accepted plan: one log entry, or, when it is larger than {@link #PART_BYTES} (thousands of placements),
     * consecutive entries with its stops and placements in order, so that no entry nears the log's limit. Every part
     * was verified with the whole plan, and nothing else is applied in between (this thread is the only plan writer).
     *
     * @return the index of the last entry
     */
    private long commit(Command.PlanApply plan) {
        byte[] entry = CommandCodec.encode(plan);
        if (entry.length <= PART_BYTES) {
            return writes.submitEncodedAndWait(entry).index();
        }
        int parts = entry.length / PART_BYTES + 1;
        long index = 0;
        for (Command.PlanApply part : plan.split(parts)) {
            index = writes.submitAndWait(part).index();
        }
        return index;
    }

    /** Why a node cannot take these placements now, or null. */
    private static String rejection(StateSnapshot snapshot, String nodeId, List<Allocation> stops,
                                    List<Allocation> places) {
        Node node = snapshot.get(NomadTables.NODES, nodeId).orElse(null);
        if (node == null) {
            return "node does not exist";
        }
        Map<String, Allocation> proposed = new HashMap<>();
        java.util.Set<String> existing = new java.util.HashSet<>();
        snapshot.byIndex(NomadTables.ALLOCS, "node", nodeId).forEach(a -> {
            existing.add(a.id());
            if (!a.terminal()) {
                proposed.put(a.id(), a);
            }
        });
        // Updates of allocations the node already has (in place, or a terminal one's follow-up) are not placements.
        boolean newPlacements = places.stream().anyMatch(a -> !existing.contains(a.id()));
        if (!Node.STATUS_DISCONNECTED.equals(node.status())
                && places.stream().anyMatch(a -> Allocation.CLIENT_UNKNOWN.equals(a.clientStatus()))) {
            return NO_LONGER_DISCONNECTED;
        }
        if (Node.STATUS_DISCONNECTED.equals(node.status())
                && places.stream().anyMatch(a -> !Allocation.CLIENT_UNKNOWN.equals(a.clientStatus()))) {
            return "node is disconnected and contains invalid updates";
        }
        if (newPlacements && !Node.STATUS_READY.equals(node.status())) {
            return "node is not ready for placements";
        }
        if (newPlacements && Node.INELIGIBLE.equals(node.schedulingEligibility())) {
            return "node is not eligible";
        }
        stops.forEach(a -> proposed.remove(a.id()));
        places.stream().filter(a -> !a.terminal()).forEach(a -> proposed.put(a.id(), a));
        return NodeFit.check(node, proposed.values());
    }

    /** A stop needs only what changes; the log entry stays small. */
    private static Allocation stopStub(Allocation a) {
        return a.toBuilder().job(null).allocatedResources(null).metrics(null).taskStates(Map.of()).build();
    }

    private static List<Allocation> flatten(Map<String, List<Allocation>> byNode,
                                            java.util.function.UnaryOperator<Allocation> strip) {
        List<Allocation> all = new ArrayList<>();
        byNode.values().forEach(list -> list.forEach(a -> all.add(strip.apply(a))));
        return all;
    }

    @Override
    public void close() {
        closed = true;
        thread.interrupt();
    }
}
