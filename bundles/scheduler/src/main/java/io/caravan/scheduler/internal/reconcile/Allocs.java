package io.caravan.scheduler.internal.reconcile;

import java.time.Duration;
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
        return Node.STATUS_DISCONNECTED.equals(node.status()) && lostAfter(group) == null;
    }

    /** The group's {@code disconnect.lost_after}, or null when it has none. */
    static Duration lostAfter(TaskGroup group) {
        if (group == null || group.disconnect() == null || group.disconnect().lostAfter() == null
                || group.disconnect().lostAfter().isZero()) {
            return null;
        }
        return group.disconnect().lostAfter();
    }

    /** When the allocation last became {@code unknown} (its recorded state change), or {@code fallback}. */
    static long lastUnknownNanos(Allocation alloc, long fallback) {
        long last = -1;
        for (Allocation.AllocState s : alloc.allocStates()) {
            if ("ClientStatus".equals(s.field()) && Allocation.CLIENT_UNKNOWN.equals(s.value()) && s.time() != null) {
                last = Math.max(last, s.time().getEpochSecond() * 1_000_000_000L + s.time().getNano());
            }
        }
        return last < 0 ? fallback : last;
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
