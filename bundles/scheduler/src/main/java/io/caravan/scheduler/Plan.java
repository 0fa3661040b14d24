package io.caravan.scheduler;

import java.util.List;
import java.util.Map;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.Job;

/**
 * What a scheduler wants changed, by node: allocations to stop or evict ({@code nodeUpdate}, each with its new
 * desired status and description) and allocations to create or update in place ({@code nodeAllocation}, complete
 * allocations with IDs, names, resources and metrics filled in). {@code annotations} is set when the evaluation
 * asked for them ({@code job plan}).
 */
public record Plan(String evalId, int priority, Job job, boolean allAtOnce, long snapshotIndex,
                   Map<String, List<Allocation>> nodeUpdate, Map<String, List<Allocation>> nodeAllocation,
                   PlanAnnotations annotations) {
    public Plan {
        nodeUpdate = Map.copyOf(nodeUpdate);
        nodeAllocation = Map.copyOf(nodeAllocation);
    }

    public boolean isNoOp() {
        return nodeUpdate.isEmpty() && nodeAllocation.isEmpty();
    }
}
