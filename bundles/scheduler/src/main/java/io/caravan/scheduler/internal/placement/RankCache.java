package io.caravan.scheduler.internal.placement;

import java.util.Arrays;

/**
 * One task group's ranking work per node, kept across the placements of an evaluation: the resource fit (or the
 * exhausted dimension) and the node-local scores, as a {@link RankedNode}, plus what the visit loop reads of it in
 * flat arrays (whether it fits, the node-local scores' sum and count), so that comparing a node that has not changed
 * reads two arrays by node index and no object. An entry is valid while the node's proposed allocations are unchanged:
 * {@link #sync} drops the entries of the nodes the plan changed since the last call (from the proposed state's change
 * log); with spread or affinities Nomad compares up to max(count, 100) nodes per placement, and most of them have not
 * changed since the last one. The last slot, {@link #outside()}, holds a node the snapshot does not list and is never
 * valid.
 */
final class RankCache {
    /** {@link #localCount} of a node the placement does not fit on. */
    static final int EXHAUSTED = -1;
    /** {@link #localCount} of a node not ranked yet, or changed since. */
    private static final int STALE = -2;

    private final RankedNode[] ranked;
    private final double[] localSum;
    private final int[] localCount;
    /** How much of the proposed state's change log was applied. */
    private int synced;

    RankCache(int nodes) {
        ranked = new RankedNode[nodes + 1];
        localSum = new double[nodes + 1];
        localCount = new int[nodes + 1];
        Arrays.fill(localCount, STALE);
    }

    /** Drops the entries of the nodes whose allocations changed since the last call. */
    void sync(ProposedState proposed) {
        int changes = proposed.nodeChanges();
        for (; synced < changes; synced++) {
            int node = proposed.changedNode(synced);
            localCount[node] = STALE;
            ranked[node] = null;
        }
    }

    /** The slot of a node outside the snapshot. */
    int outside() {
        return ranked.length - 1;
    }

    boolean valid(int slot) {
        return localCount[slot] != STALE && slot != outside();
    }

    RankedNode ranked(int slot) {
        return ranked[slot];
    }

    /** The node-local scores that did not abstain, summed in pipeline order. */
    double localSum(int slot) {
        return localSum[slot];
    }

    /** How many node-local scores did not abstain, or {@link #EXHAUSTED}. */
    int localCount(int slot) {
        return localCount[slot];
    }

    void put(int slot, RankedNode node, double sum, int count) {
        ranked[slot] = node;
        localSum[slot] = sum;
        localCount[slot] = count;
    }
}
