package io.caravan.server.internal;

import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
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
import io.caravan.scheduler.NodeLoad;
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
 * fresher state — Nomad's optimistic concurrency between schedulers. As Nomad's applier, it verifies the next plan while
 * the previous one commits ({@link #apply}): one plan in flight at a time, commits in the order plans were verified.
 */
final class PlanApplier implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PlanApplier.class);
    /** A plan marks allocations unknown on a node that is back: the scheduler must look again. */
    private static final String NO_LONGER_DISCONNECTED = "node is no longer disconnected";
    /** The largest plan written as one log entry: half of what the log takes, for headroom. */
    static final int PART_BYTES = Replicator.MAX_COMMAND_BYTES / 2;

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
                apply(next);
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

    /** The plan being committed while the next one is verified: what it wrote, and its commit's index (0: failed). */
    private record InFlight(Verified verified, CompletableFuture<Long> committed) {}

    /** Only this applier's thread reads or replaces it. */
    private InFlight inFlight;

    /**
     * Verifies a plan and starts its commit, Nomad's pipeline: while the previous plan is still committing, this one is
     * verified against the state as if that commit had been applied (optimistic), so verification and commit overlap.
     * This plan's commit starts only after the previous one finished, and when that one failed, this plan is verified
     * again against the state as it is: no write rests on a plan that was never committed. The caller's result
     * completes when the commit does.
     */
    private void apply(Pending pending) {
        Plan plan = pending.plan();
        long started = System.nanoTime();
        InFlight previous = inFlight;
        if (previous != null && previous.committed().isDone()) {
            previous = null; // already in the state (or failed): nothing pending to assume
        }
        StateSnapshot snapshot = store.snapshot();
        Verified v = verify(snapshot, previous == null ? Verified.NOTHING : previous.verified(), plan,
                clock.millis() * 1_000_000L);
        long verified = System.nanoTime();
        evaluate.recordNanos(verified - started);
        // Encoded while the previous plan still commits, too: a thousand placements are a few milliseconds of JSON.
        byte[] entry = v.command() == null ? null : CommandCodec.encode(v.command());
        if (previous != null && previous.committed().join() == 0) {
            // Verified on top of a plan that was not committed: verify again against what the state really holds.
            if (entry != null) {
                CommandCodec.forget(entry);
            }
            v = verify(store.snapshot(), Verified.NOTHING, plan, clock.millis() * 1_000_000L);
            entry = v.command() == null ? null : CommandCodec.encode(v.command());
        }
        inFlight = null;
        long index = store.latestIndex(); // includes the previous plan's commit: a refresh must see it
        if (v.command() == null) {
            applied.recordNanos(System.nanoTime() - started);
            pending.result().complete(new PlanResult(v.updates(), v.placements(), index, v.rejected() ? index : 0));
            return;
        }
        Verified accepted = v;
        CompletableFuture<Long> committed = new CompletableFuture<>();
        inFlight = new InFlight(accepted, committed);
        int placed = v.command().placed().size();
        CompletableFuture<Long> commit;
        try {
            commit = commit(v.command(), entry);
        } catch (RuntimeException e) {
            committed.complete(0L); // never started: the next plan must not wait for it, nor assume it
            throw e;
        }
        commit.whenComplete((at, error) -> {
            applied.recordNanos(System.nanoTime() - started);
            committed.complete(error == null ? at : 0L);
            if (error != null) {
                Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                        ? error.getCause() : error;
                LOG.atWarn().addKeyValue("eval_id", plan.evalId()).setCause(cause).log("plan not applied");
                pending.result().completeExceptionally(cause);
                return;
            }
            if (LOG.isDebugEnabled()) {
                LOG.atDebug().addKeyValue("eval_id", plan.evalId()).addKeyValue("placed", placed)
                        .addKeyValue("verify_ms", (verified - started) / 1_000_000)
                        .addKeyValue("commit_ms", (System.nanoTime() - verified) / 1_000_000).log("plan applied");
            }
            pending.result().complete(new PlanResult(accepted.updates(), accepted.placements(), at,
                    accepted.rejected() ? at : 0));
        });
    }

    /** What of a plan still holds: the accepted stops and placements by node, and the command that commits them. */
    record Verified(Map<String, List<Allocation>> updates, Map<String, List<Allocation>> placements,
                    boolean rejected, Command.PlanApply command) {
        /** No plan pending: verification sees the state alone. */
        static final Verified NOTHING = new Verified(Map.of(), Map.of(), false, null);
    }

    /** Re-checks a plan node by node against {@code snapshot} (the latest state); pure, so tests can drive it. */
    static Verified verify(StateSnapshot snapshot, Plan plan, long nowNanos) {
        return verify(snapshot, Verified.NOTHING, plan, nowNanos);
    }

    /**
     * Re-checks a plan against {@code snapshot} as if {@code pending} (a plan accepted and still committing) had been
     * applied to it: its stops no longer count on their nodes and its placements do. Where the snapshot already holds
     * the pending plan, assuming it again changes nothing (the same IDs, the same allocations).
     */
    static Verified verify(StateSnapshot snapshot, Verified pending, Plan plan, long nowNanos) {
        Map<String, List<Allocation>> acceptedUpdates = new LinkedHashMap<>();
        Map<String, List<Allocation>> acceptedPlacements = new LinkedHashMap<>();
        boolean rejected = false;
        boolean disconnectOutdated = false;
        Set<String> nodes = new java.util.LinkedHashSet<>(plan.nodeUpdate().keySet());
        nodes.addAll(plan.nodeAllocation().keySet());
        for (String nodeId : nodes) {
            List<Allocation> stops = plan.nodeUpdate().getOrDefault(nodeId, List.of());
            List<Allocation> places = plan.nodeAllocation().getOrDefault(nodeId, List.of());
            String reason = places.isEmpty() ? null : rejection(snapshot, nodeId, stops, places,
                    pending.updates().getOrDefault(nodeId, List.of()),
                    pending.placements().getOrDefault(nodeId, List.of()));
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
     * was verified with the whole plan, and no other plan is applied in between (the next one's commit waits for this
     * one's).
     *
     * @return the index of the last entry, once applied
     */
    private CompletableFuture<Long> commit(Command.PlanApply plan, byte[] entry) {
        if (entry.length <= PART_BYTES) {
            return writes.submitEncoded(entry).toCompletableFuture().thenApply(Command.Result::index);
        }
        CommandCodec.forget(entry); // committed as parts, never as this entry
        int parts = entry.length / PART_BYTES + 1;
        CompletableFuture<Long> index = CompletableFuture.completedFuture(0L);
        for (Command.PlanApply part : plan.split(parts)) {
            index = index.thenCompose(i -> writes.submit(part).toCompletableFuture().thenApply(Command.Result::index));
        }
        return index;
    }

    /** Why a node cannot take these placements now, or null. */
    private static String rejection(StateSnapshot snapshot, String nodeId, List<Allocation> stops,
                                    List<Allocation> places, List<Allocation> pendingStops,
                                    List<Allocation> pendingPlaces) {
        Node node = snapshot.get(NomadTables.NODES, nodeId).orElse(null);
        if (node == null) {
            return "node does not exist";
        }
        // The node's stored load, then what the pending plan and this one change on it: the last version of each
        // allocation they name replaces the stored one (null: it no longer counts). Reads no other allocation.
        Map<String, Allocation> changed = new LinkedHashMap<>();
        pendingStops.forEach(a -> changed.put(a.id(), null));
        pendingPlaces.forEach(a -> changed.put(a.id(), a.terminal() ? null : a));
        Set<String> pendingIds = new HashSet<>();
        pendingPlaces.forEach(a -> pendingIds.add(a.id()));
        // The stored versions of the allocations the plans name on this node: one lookup each.
        Map<String, Allocation> stored = new HashMap<>();
        for (List<Allocation> list : List.of(pendingStops, pendingPlaces, stops, places)) {
            for (Allocation a : list) {
                if (!stored.containsKey(a.id())) {
                    stored.put(a.id(), snapshot.get(NomadTables.ALLOCS, a.id())
                            .filter(s -> nodeId.equals(s.nodeId())).orElse(null));
                }
            }
        }
        // Updates of allocations the node already has (in place, or a terminal one's follow-up) are not placements.
        boolean newPlacements = places.stream().anyMatch(a -> !pendingIds.contains(a.id())
                && stored.get(a.id()) == null);
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
        stops.forEach(a -> changed.put(a.id(), null));
        places.stream().filter(a -> !a.terminal()).forEach(a -> changed.put(a.id(), a));
        NodeLoad load = snapshot.aggregate(NomadTables.ALLOCS, NomadTables.NODE_LOAD, nodeId);
        for (Map.Entry<String, Allocation> e : changed.entrySet()) {
            Allocation before = stored.get(e.getKey());
            if (before != null) {
                load = load.minus(NodeLoad.contribution(before));
            }
            if (e.getValue() != null) {
                load = load.plus(e.getValue().allocatedResources());
            }
        }
        return NodeFit.check(node, load);
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
