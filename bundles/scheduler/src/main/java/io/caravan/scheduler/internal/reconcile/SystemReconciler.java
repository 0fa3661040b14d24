package io.caravan.scheduler.internal.reconcile;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.Node;
import io.caravan.api.model.TaskGroup;
import io.caravan.scheduler.PlanAnnotations.DesiredUpdates;
import io.caravan.scheduler.internal.AllocBuilder;

/**
 * The reconciler of system and sysbatch jobs (Nomad's node reconciler): one allocation per group on every
 * eligible node, pinned to that node.
 * <ul>
 * <li>a stopped or purged job, or a removed group: every allocation stops (lost on down nodes);</li>
 * <li>on a down or gone node: stopped as lost, not replaced;</li>
 * <li>marked for migration (a drain): stopped, not replaced;</li>
 * <li>on a node that is up but not eligible (ineligible, draining, initializing): left alone, no new ones;</li>
 * <li>on a ready node the job no longer targets (datacenter, pool): stopped;</li>
 * <li>on an eligible node: ignored, updated in place, or replaced, by {@link JobChanges};</li>
 * <li>an eligible node without a live allocation gets one, except that sysbatch does not re-run work that
 *     finished (successfully or not: the restart policy owns retries) under the same job version.</li>
 * </ul>
 */
public final class SystemReconciler {
    private final SystemInput in;
    private final List<Placement> placements = new ArrayList<>();
    private final List<AllocStop> stops = new ArrayList<>();
    private final List<Allocation> inPlace = new ArrayList<>();
    private final Map<String, GroupUpdates> updates = new LinkedHashMap<>();

    private SystemReconciler(SystemInput in) {
        this.in = in;
    }

    public static ReconcileResult reconcile(SystemInput in) {
        return new SystemReconciler(in).compute();
    }

    private ReconcileResult compute() {
        Set<String> eligible = new HashSet<>();
        in.eligibleNodes().forEach(n -> eligible.add(n.id()));
        for (Map.Entry<String, List<Allocation>> e : Allocs.byGroup(in.job(), in.allocs()).entrySet()) {
            GroupUpdates counts = updates.computeIfAbsent(e.getKey(), g -> new GroupUpdates());
            TaskGroup tg = in.jobStopped() ? null : in.job().lookupTaskGroup(e.getKey());
            if (tg == null) {
                stopAll(e.getValue(), counts);
            } else {
                computeGroup(tg, e.getValue(), eligible, counts);
            }
        }
        Map<String, DesiredUpdates> desired = new LinkedHashMap<>();
        updates.forEach((g, c) -> desired.put(g, c.toDesiredUpdates()));
        return new ReconcileResult(placements, stops, inPlace, List.of(), List.of(), desired);
    }

    private void stopAll(List<Allocation> allocs, GroupUpdates counts) {
        for (Allocation alloc : allocs) {
            if (!alloc.terminal()) {
                boolean lost = Allocs.onLostNode(alloc, in.nodes().get(alloc.nodeId()), null);
                stops.add(lost ? AllocStop.lost(alloc) : AllocStop.notNeeded(alloc));
                counts.stop++;
            }
        }
    }

    private void computeGroup(TaskGroup tg, List<Allocation> allocs, Set<String> eligible, GroupUpdates counts) {
        Set<String> covered = new HashSet<>();
        Map<String, Allocation> finished = new HashMap<>();
        for (Allocation alloc : allocs) {
            if (alloc.terminal()) {
                finished.merge(alloc.nodeId(), alloc, (a, b) -> a.createTime() >= b.createTime() ? a : b);
                continue;
            }
            Node node = in.nodes().get(alloc.nodeId());
            if (Allocs.onLostNode(alloc, node, tg)) {
                stops.add(AllocStop.lost(alloc));
                counts.stop++;
            } else if (Allocs.migrateRequested(alloc)) {
                stops.add(new AllocStop(alloc, AllocStop.MIGRATING, null));
                counts.migrate++;
            } else if (!covered.add(alloc.nodeId())) {
                stops.add(AllocStop.notNeeded(alloc)); // a second one on the same node
                counts.stop++;
            } else if (eligible.contains(alloc.nodeId())) {
                update(alloc, tg, counts);
            } else if (node.ready()) {
                stops.add(AllocStop.notNeeded(alloc)); // the job no longer targets this node
                counts.stop++;
            } else {
                counts.ignore++; // up but not schedulable: running work stays
            }
        }
        for (Node node : in.eligibleNodes()) {
            if (covered.contains(node.id())) {
                continue;
            }
            Allocation done = finished.get(node.id());
            if (in.sysbatch() && done != null && !olderVersion(done)) {
                counts.ignore++;
                continue;
            }
            placements.add(new Placement(AllocNames.name(in.job().id(), tg.name(), 0), tg,
                    done == null ? Placement.Kind.NEW : Placement.Kind.DESTRUCTIVE, done, null, node.id()));
            counts.place++;
        }
    }

    private boolean olderVersion(Allocation alloc) {
        return alloc.job() == null || !JobChanges.sameVersion(alloc.job(), in.job());
    }

    private void update(Allocation alloc, TaskGroup tg, GroupUpdates counts) {
        switch (JobChanges.classify(alloc.job(), in.job(), tg.name())) {
            case IGNORE:
                counts.ignore++;
                break;
            case IN_PLACE:
                inPlace.add(AllocBuilder.from(alloc).job(in.job()).evalId(in.eval().id())
                        .modifyTime(in.nowNanos()).build());
                counts.inPlaceUpdate++;
                break;
            default:
                placements.add(new Placement(alloc.name(), tg, Placement.Kind.DESTRUCTIVE, alloc,
                        new AllocStop(alloc, AllocStop.UPDATING, null), alloc.nodeId()));
                counts.destructiveUpdate++;
        }
    }
}
