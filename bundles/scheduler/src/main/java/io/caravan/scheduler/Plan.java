package io.caravan.scheduler;

import java.util.List;
import java.util.Map;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.Deployment;
import io.caravan.api.model.Job;

/**
 * What a scheduler wants changed, by node: allocations to stop or evict ({@code nodeUpdate}, each with its new
 * desired status and description) and allocations to create or update in place ({@code nodeAllocation}, complete
 * allocations with IDs, names, resources and metrics filled in). {@code annotations} is set when the evaluation
 * asked for them ({@code job plan}). {@code deployment} is a deployment the plan creates (null: none), and
 * {@code deploymentUpdates} the status changes of existing ones (cancelled by a newer version, successful).
 */
public record Plan(String evalId, int priority, Job job, boolean allAtOnce, long snapshotIndex,
                   Map<String, List<Allocation>> nodeUpdate, Map<String, List<Allocation>> nodeAllocation,
                   PlanAnnotations annotations, Deployment deployment,
                   List<DeploymentStatusUpdate> deploymentUpdates) {
    public Plan {
        nodeUpdate = Map.copyOf(nodeUpdate);
        nodeAllocation = Map.copyOf(nodeAllocation);
        deploymentUpdates = deploymentUpdates == null ? List.of() : List.copyOf(deploymentUpdates);
    }

    /** A plan without deployment changes. */
    public Plan(String evalId, int priority, Job job, boolean allAtOnce, long snapshotIndex,
                Map<String, List<Allocation>> nodeUpdate, Map<String, List<Allocation>> nodeAllocation,
                PlanAnnotations annotations) {
        this(evalId, priority, job, allAtOnce, snapshotIndex, nodeUpdate, nodeAllocation, annotations, null,
                List.of());
    }

    public boolean isNoOp() {
        return nodeUpdate.isEmpty() && nodeAllocation.isEmpty() && deployment == null && deploymentUpdates.isEmpty();
    }
}
