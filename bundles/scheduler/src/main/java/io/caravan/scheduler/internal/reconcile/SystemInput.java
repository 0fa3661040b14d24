package io.caravan.scheduler.internal.reconcile;

import java.util.List;
import java.util.Map;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.api.model.Node;

/**
 * What the system reconciler looks at.
 *
 * @param job           the job, or null when it was purged
 * @param eligibleNodes ready nodes in the job's datacenters and pool: each should run one allocation per group
 * @param nodes         the nodes existing allocations are on; a missing entry means the node is gone
 */
public record SystemInput(Job job, boolean sysbatch, List<Allocation> allocs, List<Node> eligibleNodes,
                          Map<String, Node> nodes, Evaluation eval, long nowNanos) {
    public SystemInput {
        allocs = List.copyOf(allocs);
        eligibleNodes = List.copyOf(eligibleNodes);
        nodes = Map.copyOf(nodes);
    }

    public boolean jobStopped() {
        return job == null || Boolean.TRUE.equals(job.stop());
    }
}
