package io.caravan.scheduler.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import io.caravan.api.model.AllocatedResources;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Job;

/**
 * Which running allocations a system job may evict to fit on a node (Nomad's preemption, simplified): only those
 * of other jobs whose priority is at least {@value #PRIORITY_GAP} lower, the lowest priority first and, among
 * equals, the largest (so that few are evicted). The scheduler evicts them one at a time until the placement
 * fits; Nomad's closest-fit search over resource dimensions is not reproduced.
 */
final class Preemption {
    static final int PRIORITY_GAP = 10;

    private Preemption() {
    }

    static String description(String preemptingAllocId) {
        return "Preempted by alloc ID " + preemptingAllocId;
    }

    static List<Allocation> candidates(List<Allocation> onNode, Job preemptor) {
        int priority = priority(preemptor);
        List<Allocation> out = new ArrayList<>();
        for (Allocation a : onNode) {
            boolean sameJob = a.jobId().equals(preemptor.id()) && a.namespace().equals(preemptor.namespace());
            if (!sameJob && a.job() != null && priority - priority(a.job()) >= PRIORITY_GAP) {
                out.add(a);
            }
        }
        out.sort(Comparator.comparingInt((Allocation a) -> priority(a.job()))
                .thenComparing(Comparator.comparingLong(Preemption::size).reversed())
                .thenComparing(Allocation::id));
        return out;
    }

    private static int priority(Job job) {
        return job.priority() == null ? Job.DEFAULT_PRIORITY : job.priority();
    }

    /** CPU plus memory, a rough measure of what evicting the allocation frees. */
    private static long size(Allocation a) {
        AllocatedResources r = a.allocatedResources();
        long total = 0;
        if (r != null) {
            for (AllocatedResources.TaskResources t : r.tasks().values()) {
                total += (t.cpu() == null ? 0 : t.cpu().cpuShares()) + (t.memory() == null ? 0 : t.memory().memoryMb());
            }
        }
        return total;
    }
}
