package io.caravan.scheduler.internal.reconcile;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.Job;
import io.caravan.api.model.Node;
import io.caravan.api.model.TaskGroup;
import io.caravan.api.model.TaskState;

/** Small questions the reconcilers ask about allocations and their nodes. */
final class Allocs {
    /** Stable order: by name index, then ID, so results do not depend on state iteration order. */
    static final Comparator<Allocation> BY_NAME =
            Comparator.comparingInt((Allocation a) -> AllocNames.index(a.name())).thenComparing(Allocation::id);

    private Allocs() {
    }

    /** Nomad's {@code RanSuccessfully}: complete, or every task finished without failing. */
    static boolean ranSuccessfully(Allocation alloc) {
        if (Allocation.CLIENT_COMPLETE.equals(alloc.clientStatus())) {
            return true;
        }
        if (alloc.taskStates().isEmpty()) {
            return false;
        }
        for (TaskState state : alloc.taskStates().values()) {
            if (state == null || !TaskState.STATE_DEAD.equals(state.state()) || state.failed()) {
                return false;
            }
        }
        return true;
    }

    static boolean migrateRequested(Allocation alloc) {
        return Boolean.TRUE.equals(alloc.desiredTransition().migrate());
    }

    static boolean forceReschedule(Allocation alloc) {
        return Boolean.TRUE.equals(alloc.desiredTransition().forceReschedule());
    }

    /**
     * Whether the allocation's node is gone or down: its allocations are lost. A disconnected node counts as down
     * when the group has no {@code disconnect.lost_after} window (with one, see the reconciler's disconnect rules).
     */
    static boolean onLostNode(Allocation alloc, Node node, TaskGroup group) {
        if (node == null || Node.STATUS_DOWN.equals(node.status())) {
            return true;
        }
        return Node.STATUS_DISCONNECTED.equals(node.status()) && (group == null || group.lostAfter() == null);
    }

    /** The job's groups first (in job order), then groups only allocations still name. */
    static Map<String, List<Allocation>> byGroup(Job job, List<Allocation> allocs) {
        Map<String, List<Allocation>> groups = new LinkedHashMap<>();
        if (job != null) {
            for (TaskGroup tg : job.taskGroups()) {
                groups.put(tg.name(), new ArrayList<>());
            }
        }
        allocs.stream().sorted(Comparator.comparing(Allocation::taskGroup).thenComparing(BY_NAME))
                .forEach(a -> groups.computeIfAbsent(a.taskGroup(), g -> new ArrayList<>()).add(a));
        return groups;
    }
}
