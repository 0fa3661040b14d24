package io.caravan.scheduler.internal.placement;

import java.util.Arrays;

/**
 * One task group's ranking work per node, kept across the placements of an evaluation: the resource fit (or the
 * exhausted dimension) and the node-local scores, as a {@link RankedNode}. An entry is valid while the node's
 * proposed allocations are unchanged ({@link ProposedState#usageVersion}); with spread or affinities Nomad
 * compares up to max(count, 100) nodes per placement, and most of them have not changed since the last one.
 */
final class RankCache {
    private final RankedNode[] ranked;
    private final int[] version;

    RankCache(int nodes) {
        ranked = new RankedNode[nodes];
        version = new int[nodes];
        Arrays.fill(version, -1);
    }

    boolean valid(int index, int usageVersion) {
        return version[index] == usageVersion;
    }

    RankedNode ranked(int index) {
        return ranked[index];
    }

    void put(int index, int usageVersion, RankedNode node) {
        version[index] = usageVersion;
        ranked[index] = node;
    }
}
