package io.caravan.scheduler.internal.placement;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import io.caravan.api.model.Constraint;
import io.caravan.api.model.Job;
import io.caravan.api.model.Node;
import io.caravan.api.model.Task;
import io.caravan.api.model.TaskGroup;

/**
 * One placement to make: immutable, built once per placement.
 *
 * @param penaltyNodeIds   nodes the allocation failed on before (the reschedule penalty avoids them)
 * @param pinnedNode       the only node to consider (system jobs), or null for any candidate
 * @param groupConstraints the group's and its tasks' constraints
 * @param drivers          the drivers the group's tasks need
 */
public record PlacementRequest(Job job, TaskGroup group, String allocName, Set<String> penaltyNodeIds,
                               Node pinnedNode, List<Constraint> groupConstraints, Set<String> drivers) {
    public PlacementRequest {
        penaltyNodeIds = Set.copyOf(penaltyNodeIds);
        groupConstraints = List.copyOf(groupConstraints);
        drivers = Set.copyOf(drivers);
    }

    public static PlacementRequest of(Job job, TaskGroup group, String allocName, Set<String> penaltyNodeIds,
                                      Node pinnedNode) {
        List<Constraint> constraints = new ArrayList<>(group.constraints());
        Set<String> drivers = new LinkedHashSet<>();
        for (Task task : group.tasks()) {
            constraints.addAll(task.constraints());
            if (task.driver() != null) {
                drivers.add(task.driver());
            }
        }
        return new PlacementRequest(job, group, allocName, penaltyNodeIds, pinnedNode, constraints, drivers);
    }

    /** A request that only carries the job, for the candidate checks. */
    public static PlacementRequest forJob(Job job) {
        return new PlacementRequest(job, null, null, Set.of(), null, List.of(), Set.of());
    }

    public int desiredCount() {
        return group.count() == null ? 1 : group.count();
    }
}
