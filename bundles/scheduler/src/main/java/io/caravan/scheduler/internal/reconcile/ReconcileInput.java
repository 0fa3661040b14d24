package io.caravan.scheduler.internal.reconcile;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.Deployment;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.api.model.Node;

/**
 * Everything the cluster reconciler looks at.
 *
 * @param job    the job, or null when it was purged
 * @param allocs every allocation of the job, terminal ones included
 * @param nodes  the nodes those allocations are on; a missing entry means the node is gone
 * @param eval   the evaluation being processed (follow-up evals derive from it)
 * @param ids    where IDs of follow-up evaluations (and of a new deployment) come from
 * @param deployment the job's latest deployment, whatever its status (null: none)
 */
public record ReconcileInput(Job job, boolean batch, List<Allocation> allocs, Map<String, Node> nodes,
                             Evaluation eval, long nowNanos, Supplier<String> ids, Deployment deployment) {
    public ReconcileInput {
        allocs = List.copyOf(allocs);
        nodes = Map.copyOf(nodes);
    }

    /** Without a deployment. */
    public ReconcileInput(Job job, boolean batch, List<Allocation> allocs, Map<String, Node> nodes,
                          Evaluation eval, long nowNanos, Supplier<String> ids) {
        this(job, batch, allocs, nodes, eval, nowNanos, ids, null);
    }

    /** Nomad's {@code Job.Stopped()}: purged, or marked stop. */
    public boolean jobStopped() {
        return job == null || Boolean.TRUE.equals(job.stop());
    }
}
