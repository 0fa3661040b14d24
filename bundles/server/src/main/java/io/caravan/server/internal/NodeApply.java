package io.caravan.server.internal;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.DesiredTransition;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.api.model.Node;
import io.caravan.state.StateTxn;

/**
 * Applies node writes, keeping the reconnect rules of ARCHITECTURE §5 ({@link #allowedStatus}).
 */
final class NodeApply {
    private NodeApply() {
    }

    static Command.Result register(Fsm.Txn txn, Command.NodeRegister cmd) {
        StateTxn state = txn.state();
        long index = txn.index();
        Node node = cmd.node();
        Node existing = state.get(NomadTables.NODES, node.id()).orElse(null);
        Node.Builder stored = node.toBuilder();
        if (existing == null) {
            stored.createIndex(index).schedulingEligibility(Node.ELIGIBLE);
        } else {
            // What the servers own survives a re-register: eligibility, drain, history of misses and updates.
            stored.createIndex(existing.createIndex())
                    .schedulingEligibility(existing.schedulingEligibility())
                    .drainStrategy(existing.drainStrategy())
                    .lastDrain(existing.lastDrain())
                    .events(existing.events())
                    .lastMissedHeartbeatIndex(existing.lastMissedHeartbeatIndex())
                    .lastAllocUpdateIndex(existing.lastAllocUpdateIndex());
        }
        // Register never changes a known node's status (seed 001): only heartbeats do, by the rules below.
        stored.status(existing == null ? Node.STATUS_INITIALIZING : existing.status()).modifyIndex(index);
        state.put(NomadTables.NODES, stored.build());
        NodePools.createFor(state, node.nodePool(), index);
        putEvals(txn, cmd.evals());
        return Command.Result.ok(index);
    }

    static Command.Result updateStatus(Fsm.Txn txn, Command.NodeStatusUpdate cmd) {
        StateTxn state = txn.state();
        long index = txn.index();
        Node existing = state.get(NomadTables.NODES, cmd.nodeId()).orElse(null);
        if (existing == null) {
            return Command.Result.rejected(index, 404, "node not found");
        }
        Node.Builder updated = existing.toBuilder().modifyIndex(index).statusUpdatedAt(cmd.updatedAtSeconds());
        if (Node.STATUS_DOWN.equals(cmd.status()) || Node.STATUS_DISCONNECTED.equals(cmd.status())) {
            updated.status(cmd.status()).lastMissedHeartbeatIndex(index);
            if (Node.STATUS_DOWN.equals(cmd.status())) {
                ServiceRegistrations.nodeGone(state, cmd.nodeId());
            }
        } else {
            String status = allowedStatus(state, existing, cmd.status());
            updated.status(status);
            if (Node.STATUS_READY.equals(status)) {
                updated.lastMissedHeartbeatIndex(0); // back in step: the miss is settled
            }
        }
        state.put(NomadTables.NODES, updated.build());
        putEvals(txn, cmd.evals());
        return Command.Result.ok(index);
    }

    static Command.Result updateEligibility(Fsm.Txn txn, Command.NodeEligibilityUpdate cmd) {
        StateTxn state = txn.state();
        long index = txn.index();
        Node existing = state.get(NomadTables.NODES, cmd.nodeId()).orElse(null);
        if (existing == null) {
            return Command.Result.rejected(index, 404, "node not found");
        }
        if (existing.drainStrategy() != null && Node.ELIGIBLE.equals(cmd.eligibility())) {
            return Command.Result.rejected(index, 400, "can not set node's scheduling eligibility to eligible while it is draining");
        }
        state.put(NomadTables.NODES, existing.toBuilder().schedulingEligibility(cmd.eligibility()).modifyIndex(index)
                .build());
        putEvals(txn, cmd.evals());
        return Command.Result.ok(index);
    }

    /**
     * A drain marks the node ineligible and every allocation that must move ({@code Migrate}); the scheduler
     * replaces them elsewhere. Nomad's drainer moves them gradually by each group's {@code migrate} block;
     * here they move at once.
     */
    static Command.Result updateDrain(Fsm.Txn txn, Command.NodeDrainUpdate cmd) {
        StateTxn state = txn.state();
        long index = txn.index();
        Node existing = state.get(NomadTables.NODES, cmd.nodeId()).orElse(null);
        if (existing == null) {
            return Command.Result.rejected(index, 404, "node not found");
        }
        Instant now = Instant.ofEpochSecond(0, cmd.updatedAtNanos());
        Node.Builder updated = existing.toBuilder().modifyIndex(index).drainStrategy(cmd.strategy());
        if (cmd.strategy() != null) {
            updated.schedulingEligibility(Node.INELIGIBLE)
                    .lastDrain(new Node.DrainMetadata(now, now, Node.DrainMetadata.STATUS_DRAINING, "", Map.of()));
            boolean ignoreSystem = cmd.strategy().ignoreSystemJobs();
            for (Allocation a : state.read().byIndex(NomadTables.ALLOCS, "node", cmd.nodeId()).toList()) {
                if (a.terminal() || (ignoreSystem && isSystem(a.job()))) {
                    continue;
                }
                DesiredTransition t = a.desiredTransition();
                txn.putAlloc(a, a.toBuilder().desiredTransition(new DesiredTransition(true,
                        t.reschedule(), t.forceReschedule(), t.noShutdownDelay(), t.migrateDisablePlacement()))
                        .modifyIndex(index).build());
            }
        } else {
            if (cmd.markEligible()) {
                updated.schedulingEligibility(Node.ELIGIBLE);
            }
            if (existing.lastDrain() != null) {
                Node.DrainMetadata last = existing.lastDrain();
                updated.lastDrain(new Node.DrainMetadata(last.startedAt(), now, cmd.complete()
                        ? Node.DrainMetadata.STATUS_COMPLETE : Node.DrainMetadata.STATUS_CANCELED,
                        last.accessorId(), last.meta()));
            }
        }
        state.put(NomadTables.NODES, updated.build());
        putEvals(txn, cmd.evals());
        return Command.Result.ok(index);
    }

    static Command.Result deregister(Fsm.Txn txn, Command.NodeDeregister cmd) {
        long index = txn.index();
        if (!txn.state().delete(NomadTables.NODES, cmd.nodeId())) {
            return Command.Result.rejected(index, 404, "node not found");
        }
        ServiceRegistrations.nodeGone(txn.state(), cmd.nodeId());
        putEvals(txn, cmd.evals());
        return Command.Result.ok(index);
    }

    /**
     * ARCHITECTURE §5, Nomad's reconnect order: a node asking for {@code ready} after a missed heartbeat is left
     * {@code initializing} until its allocations' state has reached the servers since the miss
     * ({@code LastAllocUpdateIndex} past {@code LastMissedHeartbeatIndex}); a disconnected node always passes through
     * {@code initializing}, since its client must report the allocations that were {@code unknown}.
     */
    private static String allowedStatus(StateTxn state, Node existing, String requested) {
        if (requested == null || requested.isEmpty()) {
            return Node.STATUS_INITIALIZING;
        }
        if (!Node.STATUS_READY.equals(requested) || existing == null) {
            return requested;
        }
        if (Node.STATUS_DISCONNECTED.equals(existing.status())) {
            return Node.STATUS_INITIALIZING;
        }
        boolean stale = existing.lastAllocUpdateIndex() <= existing.lastMissedHeartbeatIndex()
                && existing.lastMissedHeartbeatIndex() > 0;
        if (stale && state.read().byIndex(NomadTables.ALLOCS, "node", existing.id()).anyMatch(a -> !a.terminal())) {
            return Node.STATUS_INITIALIZING;
        }
        return Node.STATUS_READY;
    }

    private static boolean isSystem(Job job) {
        return job != null && (Job.TYPE_SYSTEM.equals(job.type()) || Job.TYPE_SYSBATCH.equals(job.type()));
    }

    /** New evaluations that came with a node or alloc write. */
    static void putEvals(Fsm.Txn txn, List<Evaluation> evals) {
        for (Evaluation e : evals) {
            txn.putEval(e.withIndexes(txn.index(), txn.index()));
        }
    }
}
