package io.caravan.scheduler;

import java.util.List;
import java.util.Map;

import io.caravan.api.model.Allocation;

/**
 * What the plan applier committed: the accepted part of the plan, the Raft index it was committed at, and, when
 * some nodes were rejected, {@code refreshIndex > 0} — the scheduler must refresh its state to at least that index
 * and try again for what is left.
 */
public record PlanResult(Map<String, List<Allocation>> nodeUpdate, Map<String, List<Allocation>> nodeAllocation,
                         long allocIndex, long refreshIndex) {
    public PlanResult {
        nodeUpdate = Map.copyOf(nodeUpdate);
        nodeAllocation = Map.copyOf(nodeAllocation);
    }

    /** Whether every node of the plan was accepted. */
    public boolean fullCommit(Plan plan) {
        return refreshIndex == 0;
    }
}
