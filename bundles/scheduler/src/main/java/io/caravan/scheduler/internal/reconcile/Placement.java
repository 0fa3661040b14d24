package io.caravan.scheduler.internal.reconcile;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.TaskGroup;

/**
 * An allocation the scheduler must place. {@code previous} is the allocation it replaces (lost, migrated,
 * rescheduled or destructively updated), {@code stopPrevious} the stop that goes with the placement and is
 * dropped again if the placement fails (Nomad stops a failed or outdated allocation only once its replacement
 * has a node). {@code nodeId} pins the placement to one node (system jobs); null means any feasible node.
 * {@code canary} places a canary of a deployment ({@code DeploymentStatus.Canary}).
 */
public record Placement(String name, TaskGroup group, Kind kind, Allocation previous, AllocStop stopPrevious,
                        String nodeId, boolean canary) {

    public enum Kind { NEW, LOST, DISCONNECTED, MIGRATE, RESCHEDULE, DESTRUCTIVE }

    /** Not a canary. */
    public Placement(String name, TaskGroup group, Kind kind, Allocation previous, AllocStop stopPrevious,
                     String nodeId) {
        this(name, group, kind, previous, stopPrevious, nodeId, false);
    }

    /** A canary of a new job version: placed beside the allocations it may replace once promoted. */
    public static Placement canary(String name, TaskGroup group) {
        return new Placement(name, group, Kind.NEW, null, null, null, true);
    }

    public static Placement fresh(String name, TaskGroup group) {
        return new Placement(name, group, Kind.NEW, null, null, null);
    }

    public boolean rescheduling() {
        return kind == Kind.RESCHEDULE;
    }
}
