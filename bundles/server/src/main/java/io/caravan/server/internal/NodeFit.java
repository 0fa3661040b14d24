package io.caravan.server.internal;

import io.caravan.api.model.Node;
import io.caravan.api.model.NodeReservedResources;
import io.caravan.api.model.NodeResources;
import io.caravan.scheduler.NodeLoad;

/**
 * Whether what a node's allocations would use fits on it (Nomad's {@code AllocsFit}): cpu, memory and disk within the
 * node's resources less what it reserves, and no host port used by two allocations. The plan applier's last check
 * before committing.
 */
final class NodeFit {
    private NodeFit() {
    }

    /** @return null when the load fits, else the exhausted dimension ("cpu", "memory", "disk", "network: port collision") */
    static String check(Node node, NodeLoad load) {
        NodeResources total = node.nodeResources();
        if (total == null) {
            return load.equals(NodeLoad.EMPTY) ? null : "node has no resources";
        }
        NodeReservedResources reserved = node.reservedResources();
        long cpu = total.cpu() == null ? 0 : total.cpu().cpuShares();
        long memory = total.memory() == null ? 0 : total.memory().memoryMb();
        long disk = total.disk() == null ? 0 : total.disk().diskMb();
        if (reserved != null) {
            cpu -= reserved.cpu() == null ? 0 : reserved.cpu().cpuShares();
            memory -= reserved.memory() == null ? 0 : reserved.memory().memoryMb();
            disk -= reserved.disk() == null ? 0 : reserved.disk().diskMb();
        }
        if (load.portCollision()) {
            return "network: port collision";
        }
        if (load.cpu() > cpu) {
            return "cpu";
        }
        if (load.memoryMb() > memory) {
            return "memory";
        }
        if (load.diskMb() > disk) {
            return "disk";
        }
        return null;
    }
}
