package io.caravan.scheduler.internal.placement;

import java.util.List;

import io.caravan.api.model.Node;
import io.caravan.api.model.NodeReservedResources;
import io.caravan.api.model.NodeResources;

/**
 * What each node of the snapshot offers for placement, its resources minus what it keeps back, as one vector of
 * longs indexed by node (CPU MHz, memory MB, disk MB side by side), computed in one pass per evaluation: fitting a
 * placement reads three adjacent longs instead of walking the node's resource records.
 */
final class NodeCapacities {
    private static final int CPU = 0;
    private static final int MEMORY = 1;
    private static final int DISK = 2;
    private static final int WIDTH = 3;

    private final long[] offered;

    NodeCapacities(List<Node> nodes) {
        offered = new long[nodes.size() * WIDTH];
        for (int i = 0; i < nodes.size(); i++) {
            offered(nodes.get(i), offered, i * WIDTH);
        }
    }

    long cpu(int nodeIndex) {
        return offered[nodeIndex * WIDTH + CPU];
    }

    long memoryMb(int nodeIndex) {
        return offered[nodeIndex * WIDTH + MEMORY];
    }

    long diskMb(int nodeIndex) {
        return offered[nodeIndex * WIDTH + DISK];
    }

    /** Writes the node's offered CPU, memory and disk at {@code out[at .. at + 2]}. */
    static void offered(Node node, long[] out, int at) {
        NodeResources r = node.nodeResources();
        NodeReservedResources k = node.reservedResources();
        long cpu = r == null || r.cpu() == null ? 0 : r.cpu().cpuShares();
        long mem = r == null || r.memory() == null ? 0 : r.memory().memoryMb();
        long disk = r == null || r.disk() == null ? 0 : r.disk().diskMb();
        if (k != null) {
            cpu -= k.cpu() == null ? 0 : k.cpu().cpuShares();
            mem -= k.memory() == null ? 0 : k.memory().memoryMb();
            disk -= k.disk() == null ? 0 : k.disk().diskMb();
        }
        out[at + CPU] = cpu;
        out[at + MEMORY] = mem;
        out[at + DISK] = disk;
    }
}
