package io.caravan.server.internal;

import java.util.Collection;
import java.util.HashSet;
import java.util.Set;

import io.caravan.api.model.AllocatedResources;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.NetworkResource;
import io.caravan.api.model.Node;
import io.caravan.api.model.NodeReservedResources;
import io.caravan.api.model.NodeResources;
import io.caravan.api.model.Port;

/**
 * Whether a set of allocations fits on a node (Nomad's {@code AllocsFit}): cpu, memory and disk within the node's
 * resources less what it reserves, and no host port used twice. The plan applier's last check before committing.
 */
final class NodeFit {
    private NodeFit() {
    }

    /** @return null when they fit, else the exhausted dimension ("cpu", "memory", "disk", "network: port collision") */
    static String check(Node node, Collection<Allocation> allocs) {
        NodeResources total = node.nodeResources();
        if (total == null) {
            return allocs.isEmpty() ? null : "node has no resources";
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
        long usedCpu = 0;
        long usedMemory = 0;
        long usedDisk = 0;
        Set<Integer> ports = new HashSet<>();
        for (Allocation a : allocs) {
            AllocatedResources r = a.allocatedResources();
            if (r == null) {
                continue;
            }
            for (AllocatedResources.TaskResources t : r.tasks().values()) {
                usedCpu += t.cpu() == null ? 0 : t.cpu().cpuShares();
                usedMemory += t.memory() == null ? 0 : t.memory().memoryMb();
                if (!addPorts(ports, t.networks())) {
                    return "network: port collision";
                }
            }
            if (r.shared() != null) {
                usedDisk += r.shared().diskMb();
                if (!addPorts(ports, r.shared().networks())) {
                    return "network: port collision";
                }
            }
        }
        if (usedCpu > cpu) {
            return "cpu";
        }
        if (usedMemory > memory) {
            return "memory";
        }
        if (usedDisk > disk) {
            return "disk";
        }
        return null;
    }

    private static boolean addPorts(Set<Integer> used, Collection<NetworkResource> networks) {
        for (NetworkResource n : networks) {
            for (Port p : n.reservedPorts()) {
                if (p.value() > 0 && !used.add(p.value())) {
                    return false;
                }
            }
            for (Port p : n.dynamicPorts()) {
                if (p.value() > 0 && !used.add(p.value())) {
                    return false;
                }
            }
        }
        return true;
    }
}
