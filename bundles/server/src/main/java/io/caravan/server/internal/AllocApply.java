package io.caravan.server.internal;

import java.util.Map;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.DesiredTransition;
import io.caravan.api.model.Job;
import io.caravan.api.model.Node;
import io.caravan.state.StateTxn;

/** Applies allocation writes: committed plans, client updates, server-requested transitions. */
final class AllocApply {
    private AllocApply() {
    }

    /**
     * Stops and placements of one plan. Every placed allocation shares one job object (the stored version when it
     * is the same), so a thousand allocations of a job cost one job in memory.
     */
    static Command.Result planApply(Fsm.Txn txn, Command.PlanApply cmd) {
        StateTxn state = txn.state();
        long index = txn.index();
        DeploymentApply.plan(txn, cmd);
        for (Allocation stop : cmd.stopped()) {
            Allocation existing = state.get(NomadTables.ALLOCS, stop.id()).orElse(null);
            if (existing == null) {
                continue; // gone meanwhile (garbage collected): nothing left to stop
            }
            Allocation.Builder b = existing.toBuilder().desiredStatus(stop.desiredStatus())
                    .desiredDescription(stop.desiredDescription())
                    .modifyIndex(index).allocModifyIndex(index).modifyTime(cmd.timestampNanos());
            if (stop.clientStatus() != null && !stop.clientStatus().isEmpty()) {
                b.clientStatus(stop.clientStatus()).clientDescription(stop.clientDescription());
            }
            if (stop.followupEvalId() != null && !stop.followupEvalId().isEmpty()) {
                b.followupEvalId(stop.followupEvalId());
            }
            txn.putAlloc(existing, b.build());
        }
        Job job = sharedJob(state, cmd.job());
        for (Allocation place : cmd.placed()) {
            Allocation existing = state.get(NomadTables.ALLOCS, place.id()).orElse(null);
            Allocation.Builder b = place.toBuilder().job(job).modifyIndex(index).allocModifyIndex(index)
                    .modifyTime(cmd.timestampNanos());
            if (existing == null) {
                b.createIndex(index);
            } else {
                // An in-place update or annotation: the client's side of the allocation stays as the client
                // reported it, except the one client status servers set on a live allocation, unknown (its node
                // disconnected; the plan applier checked it still is).
                b.createIndex(existing.createIndex()).taskStates(existing.taskStates())
                        .createTime(existing.createTime());
                if (java.util.Objects.equals(place.deploymentId(), existing.deploymentId())) {
                    b.deploymentStatus(existing.deploymentStatus()); // health the client reported meanwhile
                }
                if (!Allocation.CLIENT_UNKNOWN.equals(place.clientStatus())) {
                    b.clientStatus(existing.clientStatus()).clientDescription(existing.clientDescription());
                }
            }
            Allocation stored = b.build();
            txn.putAlloc(existing, stored);
            DeploymentApply.placed(txn, existing, stored, cmd.timestampNanos());
            if (place.previousAllocation() != null && !place.previousAllocation().isEmpty()) {
                state.get(NomadTables.ALLOCS, place.previousAllocation()).ifPresent(prev -> txn.putAlloc(prev,
                        prev.toBuilder().nextAllocation(place.id()).modifyIndex(index).build()));
            }
        }
        return Command.Result.ok(index);
    }

    /**
     * Clients' views of their allocations. Only client fields change; {@code AllocModifyIndex} stays, so a client is
     * not woken by its own update. Each node's {@code LastAllocUpdateIndex} records the sync (ARCHITECTURE §5). A
     * node that is down or gone by now is skipped: the endpoint refused it before batching, and a miss since then
     * means its view is stale.
     */
    static Command.Result clientUpdate(Fsm.Txn txn, Command.AllocClientUpdate cmd) {
        StateTxn state = txn.state();
        long index = txn.index();
        for (Command.NodeAllocs part : cmd.nodes()) {
            Node node = state.get(NomadTables.NODES, part.nodeId()).orElse(null);
            if (node == null || !acceptsAllocUpdates(node)) {
                continue;
            }
            for (Allocation update : part.allocs()) {
                Allocation existing = state.get(NomadTables.ALLOCS, update.id()).orElse(null);
                if (existing == null || !part.nodeId().equals(existing.nodeId())) {
                    continue; // garbage collected, or not this node's: Nomad ignores these too
                }
                txn.putAlloc(existing, existing.toBuilder().clientStatus(update.clientStatus())
                        .clientDescription(update.clientDescription()).taskStates(update.taskStates())
                        .deploymentStatus(DeploymentApply.clientHealth(txn, existing, update, cmd.updatedAtNanos()))
                        .modifyIndex(index).modifyTime(cmd.updatedAtNanos()).build());
            }
            state.put(NomadTables.NODES, node.toBuilder().lastAllocUpdateIndex(index).build());
        }
        NodeApply.putEvals(txn, cmd.evals());
        return Command.Result.ok(index);
    }

    /** A down or disconnected node must heartbeat (becoming initializing) before its allocation updates count. */
    static boolean acceptsAllocUpdates(Node node) {
        return !Node.STATUS_DOWN.equals(node.status()) && !Node.STATUS_DISCONNECTED.equals(node.status());
    }

    static Command.Result transitionUpdate(Fsm.Txn txn, Command.AllocTransitionUpdate cmd) {
        StateTxn state = txn.state();
        long index = txn.index();
        for (Map.Entry<String, DesiredTransition> e : cmd.transitions().entrySet()) {
            Allocation existing = state.get(NomadTables.ALLOCS, e.getKey()).orElse(null);
            if (existing == null) {
                return Command.Result.rejected(index, 404, "alloc not found");
            }
            txn.putAlloc(existing, existing.toBuilder().desiredTransition(e.getValue()).modifyIndex(index).build());
        }
        NodeApply.putEvals(txn, cmd.evals());
        return Command.Result.ok(index);
    }

    private static Job sharedJob(StateTxn state, Job job) {
        if (job == null) {
            return null;
        }
        String versionKey = NomadTables.JOB_VERSIONS.idOf(job);
        return state.get(NomadTables.JOB_VERSIONS, versionKey).filter(stored -> JobApply.sameSpec(stored, job))
                .orElse(job);
    }
}
