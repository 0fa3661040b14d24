package io.caravan.scheduler.internal.placement;

import java.util.Arrays;

/**
 * One task group's ranking work per node, kept across the placements of an evaluation: the resource fit (or the
 * exhausted dimension) and the node-local scores, as a {@link RankedNode}, plus what the visit loop reads of it in
 * flat arrays (whether it fits, the node-local scores' sum and count), so that comparing a node that has not changed
 * reads two arrays by node index and no object. An entry is valid while the node's proposed allocations are unchanged
 * ({@link ProposedState#usageVersion}); with spread or affinities Nomad compares up to max(count, 100) nodes per
 * placement, and most of them have not changed since the last one. The last slot, {@link #outside()}, holds a node
 * the snapshot does not list and is never valid.
 */
final class RankCache {
    /** {@link #localCount} of a node the placement does not fit on. */
    static final int EXHAUSTED = -1;

    private final RankedNode[] ranked;
    private final int[] version;
    private final double[] localSum;
    private final int[] localCount;

    RankCache(int nodes) {
        ranked = new RankedNode[nodes + 1];
        version = new int[nodes + 1];
        localSum = new double[nodes + 1];
        localCount = new int[nodes + 1];
        Arrays.fill(version, -1);
    }

    /** The slot of a node outside the snapshot. */
    int outside() {
        return ranked.length - 1;
    }

    boolean valid(int slot, int usageVersion) {
        return version[slot] == usageVersion && slot != outside();
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

    void put(int slot, int usageVersion, RankedNode node, double sum, int count) {
        version[slot] = usageVersion;
        ranked[slot] = node;
        localSum[slot] = sum;
        localCount[slot] = count;
    }
}
