package io.caravan.scheduler.internal.placement;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.caravan.api.model.AllocatedResources;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Node;
import io.caravan.scheduler.NodeLoad;
import io.caravan.scheduler.SchedulerState;

/**
 * The state as the plan being built would leave it: existing allocations minus those the plan stops, with
 * in-place updates applied, plus those it places. Several placements in one plan see each other through it.
 * It also is the plan's content ({@link #nodeUpdate()}, {@link #nodeAllocation()}).
 */
public final class ProposedState {
    private final SchedulerState state;
    private final String namespace;
    private final String jobId;
    private final Map<String, List<Allocation>> nodeUpdate = new LinkedHashMap<>();
    private final Map<String, List<Allocation>> nodeAllocation = new LinkedHashMap<>();
    private final Map<String, Allocation> stopped = new HashMap<>();
    private final Map<String, Allocation> replaced = new HashMap<>();
    private final Set<String> placed = new HashSet<>();
    /** The snapshot's nodes, densely numbered so per-node caches are arrays rather than maps. */
    private final List<Node> nodes;
    private final Map<String, Integer> nodeIndex = new HashMap<>();
    private final NodeUsage[] usageByIndex;
    /**
     * The indexes of the nodes whose allocations the plan changed, in order (with repeats): per-node caches catch up
     * by reading it from where they stopped, rather than checking a version for every node they read.
     */
    private int[] changedNodes = new int[64];
    private int changes;
    /** Usage of nodes the snapshot does not list (allocations on nodes that are gone). */
    private final Map<String, NodeUsage> usageElsewhere = new HashMap<>();
    /** Every change to the job's live allocations, in order, so per-property counters can catch up cheaply. */
    private final List<JobChange> jobLog = new ArrayList<>();
    private List<Allocation> baseJobAllocs;
    private Set<String> baseJobAllocIds;
    private JobPresence jobPresence;
    private int jobPresenceSeen;

    /** A job allocation appearing ({@code +1}) or going away ({@code -1}). */
    public record JobChange(Allocation alloc, int delta) {
    }

    public ProposedState(SchedulerState state, String namespace, String jobId) {
        this.state = state;
        this.namespace = namespace;
        this.jobId = jobId;
        this.nodes = state.nodes();
        for (int i = 0; i < nodes.size(); i++) {
            nodeIndex.put(nodes.get(i).id(), i);
        }
        this.usageByIndex = new NodeUsage[nodes.size()];
    }

    /** The snapshot's nodes; {@link #indexOf} numbers them. */
    public List<Node> nodes() {
        return nodes;
    }

    /** The node's position in {@link #nodes()}, or -1 when the snapshot has no such node. */
    public int indexOf(String nodeId) {
        Integer i = nodeIndex.get(nodeId);
        return i == null ? -1 : i;
    }

    private void invalidate(String nodeId) {
        int i = indexOf(nodeId);
        if (i >= 0) {
            usageByIndex[i] = null;
            if (changes == changedNodes.length) {
                changedNodes = Arrays.copyOf(changedNodes, changes * 2);
            }
            changedNodes[changes++] = i;
        } else {
            usageElsewhere.remove(nodeId);
        }
    }

    public SchedulerState state() {
        return state;
    }

    /** Adds a stop (the allocation as it should be stored: desired status stop, …) to the plan, or replaces it. */
    public void stop(Allocation stoppedAlloc) {
        Allocation previous = stopped.put(stoppedAlloc.id(), stoppedAlloc);
        List<Allocation> list = nodeUpdate.computeIfAbsent(stoppedAlloc.nodeId(), n -> new ArrayList<>());
        if (previous != null) {
            list.removeIf(a -> a.id().equals(stoppedAlloc.id())); // a second stop of the same allocation replaces it
        }
        list.add(stoppedAlloc);
        invalidate(stoppedAlloc.nodeId());
        if (previous == null && isJobAlloc(stoppedAlloc) && wasLive(stoppedAlloc.id())) {
            jobLog.add(new JobChange(stoppedAlloc, -1));
        }
    }

    /** Takes a stop back out of the plan (its replacement could not be placed). */
    public void undoStop(Allocation stoppedAlloc) {
        if (stopped.remove(stoppedAlloc.id()) == null) {
            return;
        }
        List<Allocation> list = nodeUpdate.get(stoppedAlloc.nodeId());
        list.removeIf(a -> a.id().equals(stoppedAlloc.id()));
        if (list.isEmpty()) {
            nodeUpdate.remove(stoppedAlloc.nodeId());
        }
        invalidate(stoppedAlloc.nodeId());
        if (isJobAlloc(stoppedAlloc) && wasLive(stoppedAlloc.id())) {
            jobLog.add(new JobChange(stoppedAlloc, +1));
        }
    }

    /** Adds a new allocation to the plan. */
    public void place(Allocation alloc) {
        placed.add(alloc.id());
        nodeAllocation.computeIfAbsent(alloc.nodeId(), n -> new ArrayList<>()).add(alloc);
        invalidate(alloc.nodeId());
        if (isJobAlloc(alloc)) {
            jobLog.add(new JobChange(alloc, +1));
        }
    }

    /** Adds a new version of an existing allocation (in-place update) to the plan. */
    public void update(Allocation alloc) {
        nodeAllocation.computeIfAbsent(alloc.nodeId(), n -> new ArrayList<>()).add(alloc);
        replaced.put(alloc.id(), alloc);
        invalidate(alloc.nodeId());
    }

    /** Adds a server-side attribute change of an existing (possibly terminal) allocation; usage is unaffected. */
    public void annotate(Allocation alloc) {
        nodeAllocation.computeIfAbsent(alloc.nodeId(), n -> new ArrayList<>()).add(alloc);
    }

    /** What the non-terminal allocations the node would run use. */
    public NodeUsage usage(String nodeId) {
        int i = indexOf(nodeId);
        if (i >= 0) {
            return usage(i);
        }
        return usageElsewhere.computeIfAbsent(nodeId, id -> new NodeUsage(proposedLoad(id)));
    }

    /** How many node changes {@link #changedNode} can tell. */
    public int nodeChanges() {
        return changes;
    }

    /** The index of the node of the {@code k}-th change to a listed node's allocations. */
    public int changedNode(int k) {
        return changedNodes[k];
    }

    /** The same by node index (the hot path of ranking). */
    public NodeUsage usage(int nodeIndex) {
        NodeUsage u = usageByIndex[nodeIndex];
        if (u == null) {
            u = new NodeUsage(proposedLoad(nodes.get(nodeIndex).id()));
            usageByIndex[nodeIndex] = u;
        }
        return u;
    }

    /**
     * The node's stored load with this plan's changes on it: its stops and in-place updates of stored live
     * allocations, and its placements not stopped again. Reads only what the plan touches on the node, not every
     * allocation the node has.
     */
    private NodeLoad proposedLoad(String nodeId) {
        NodeLoad load = state.load(nodeId);
        List<Allocation> stops = nodeUpdate.getOrDefault(nodeId, List.of());
        List<Allocation> changed = nodeAllocation.getOrDefault(nodeId, List.of());
        if (stops.isEmpty() && changed.isEmpty()) {
            return load;
        }
        Set<String> seen = new HashSet<>();
        for (Allocation stop : stops) {
            if (seen.add(stop.id())) {
                load = load.minus(storedLive(nodeId, stop.id()));
            }
        }
        for (Allocation a : changed) {
            if (placed.contains(a.id())) {
                if (!stopped.containsKey(a.id())) {
                    load = load.plus(a.allocatedResources());
                }
            } else if (replaced.containsKey(a.id()) && !stopped.containsKey(a.id()) && seen.add(a.id())) {
                AllocatedResources stored = storedLive(nodeId, a.id());
                if (stored != null) {
                    load = load.minus(stored).plus(replaced.get(a.id()).allocatedResources());
                }
            }
        }
        return load;
    }

    /** The resources of the stored allocation while it is live (what the stored load counts), else null. */
    private AllocatedResources storedLive(String nodeId, String allocId) {
        return state.alloc(nodeId, allocId).map(NodeLoad::contribution).orElse(null);
    }

    /** The non-terminal allocations the node would run (preemption weighs each). */
    public List<Allocation> allocs(String nodeId) {
        List<Allocation> out = new ArrayList<>();
        for (Allocation a : state.allocsByNode(nodeId)) {
            if (!a.terminal() && !stopped.containsKey(a.id())) {
                out.add(replaced.getOrDefault(a.id(), a));
            }
        }
        for (Allocation a : nodeAllocation.getOrDefault(nodeId, List.of())) {
            if (placed.contains(a.id()) && !stopped.containsKey(a.id())) {
                out.add(a);
            }
        }
        return out;
    }

    /**
     * How many of the job's allocations of {@code group} (of any group when null) the node would run: what
     * {@code distinct_hosts} and job anti-affinity count, from the job's allocations rather than the node's.
     */
    public int jobAllocsOn(int nodeIndex, String group) {
        if (nodeIndex < 0) {
            return 0;
        }
        if (jobPresence == null) {
            jobPresence = new JobPresence();
            baseJobAllocs().forEach(a -> jobPresence.count(a, 1));
        }
        for (; jobPresenceSeen < jobLog.size(); jobPresenceSeen++) {
            JobChange change = jobLog.get(jobPresenceSeen);
            jobPresence.count(change.alloc(), change.delta());
        }
        return jobPresence.on(nodeIndex, group);
    }

    /** The job's live allocations per node: all groups, and each group. */
    private final class JobPresence {
        private final int[] all = new int[nodes.size()];
        private final Map<String, int[]> byGroup = new HashMap<>();

        void count(Allocation a, int delta) {
            int i = indexOf(a.nodeId());
            if (i >= 0) {
                all[i] += delta;
                byGroup.computeIfAbsent(a.taskGroup(), g -> new int[nodes.size()])[i] += delta;
            }
        }

        int on(int nodeIndex, String group) {
            if (group == null) {
                return all[nodeIndex];
            }
            int[] counts = byGroup.get(group);
            return counts == null ? 0 : counts[nodeIndex];
        }
    }

    /** The job's live allocations before this plan. */
    public List<Allocation> baseJobAllocs() {
        if (baseJobAllocs == null) {
            List<Allocation> live = new ArrayList<>();
            for (Allocation a : state.allocsByJob(namespace, jobId)) {
                if (!a.terminal()) {
                    live.add(a);
                }
            }
            baseJobAllocs = live;
        }
        return baseJobAllocs;
    }

    /** Changes to the job's live allocations since {@code from} (a position returned earlier by {@link #jobLogSize()}). */
    public List<JobChange> jobChangesSince(int from) {
        return jobLog.subList(from, jobLog.size());
    }

    public int jobLogSize() {
        return jobLog.size();
    }

    /** Whether the allocation counted among the job's live ones before it was stopped (stopping a terminal one changes no count). */
    private boolean wasLive(String allocId) {
        if (baseJobAllocIds == null) {
            Set<String> ids = new HashSet<>();
            baseJobAllocs().forEach(a -> ids.add(a.id()));
            baseJobAllocIds = ids;
        }
        return placed.contains(allocId) || baseJobAllocIds.contains(allocId);
    }

    private boolean isJobAlloc(Allocation a) {
        return jobId.equals(a.jobId()) && namespace.equals(a.namespace());
    }

    public Map<String, List<Allocation>> nodeUpdate() {
        return nodeUpdate;
    }

    public Map<String, List<Allocation>> nodeAllocation() {
        return nodeAllocation;
    }

    public boolean isEmpty() {
        return nodeUpdate.isEmpty() && nodeAllocation.isEmpty();
    }
}
