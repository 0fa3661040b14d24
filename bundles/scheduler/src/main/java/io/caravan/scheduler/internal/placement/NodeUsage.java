package io.caravan.scheduler.internal.placement;

import java.util.BitSet;
import java.util.List;

import io.caravan.api.model.AllocatedResources;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.NetworkResource;
import io.caravan.api.model.Port;

/** What the proposed allocations on one node use. Ports are indexed only when a placement asks for ports. */
public final class NodeUsage {
    private final List<Allocation> allocs;
    private final long cpu;
    private final long memoryMb;
    private final long diskMb;
    private final BitSet cores = new BitSet();
    private BitSet ports;

    NodeUsage(List<Allocation> allocs) {
        this.allocs = allocs;
        long c = 0;
        long m = 0;
        long d = 0;
        for (Allocation a : allocs) {
            AllocatedResources r = a.allocatedResources();
            if (r == null) {
                continue;
            }
            for (AllocatedResources.TaskResources t : r.tasks().values()) {
                if (t.cpu() != null) {
                    c += t.cpu().cpuShares();
                    t.cpu().reservedCores().forEach(cores::set);
                }
                if (t.memory() != null) {
                    m += t.memory().memoryMb();
                }
            }
            if (r.shared() != null) {
                d += r.shared().diskMb();
            }
        }
        cpu = c;
        memoryMb = m;
        diskMb = d;
    }

    public List<Allocation> allocs() {
        return allocs;
    }

    public long cpu() {
        return cpu;
    }

    public long memoryMb() {
        return memoryMb;
    }

    public long diskMb() {
        return diskMb;
    }

    public BitSet cores() {
        return cores;
    }

    /** Host ports taken by the proposed allocations. */
    public BitSet ports() {
        if (ports == null) {
            BitSet used = new BitSet();
            for (Allocation a : allocs) {
                AllocatedResources r = a.allocatedResources();
                if (r == null) {
                    continue;
                }
                if (r.shared() != null) {
                    r.shared().ports().forEach(p -> used.set(p.value()));
                    r.shared().networks().forEach(n -> markPorts(n, used));
                }
                r.tasks().values().forEach(t -> t.networks().forEach(n -> markPorts(n, used)));
            }
            ports = used;
        }
        return ports;
    }

    private static void markPorts(NetworkResource network, BitSet used) {
        for (Port p : network.reservedPorts()) {
            if (p.value() > 0) {
                used.set(p.value());
            }
        }
        for (Port p : network.dynamicPorts()) {
            if (p.value() > 0) {
                used.set(p.value());
            }
        }
    }
}
