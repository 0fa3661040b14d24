package io.caravan.scheduler.internal.placement;

import java.util.BitSet;

import io.caravan.scheduler.NodeLoad;

/** What the proposed allocations on one node use; cores and ports are expanded only when a placement asks for them. */
public final class NodeUsage {
    private final NodeLoad load;
    private BitSet cores;
    private BitSet ports;

    NodeUsage(NodeLoad load) {
        this.load = load;
    }

    public long cpu() {
        return load.cpu();
    }

    public long memoryMb() {
        return load.memoryMb();
    }

    public long diskMb() {
        return load.diskMb();
    }

    /** Reserved cores taken by the proposed allocations. */
    public BitSet cores() {
        if (cores == null) {
            cores = load.cores();
        }
        return cores;
    }

    /** Host ports taken by the proposed allocations. */
    public BitSet ports() {
        if (ports == null) {
            ports = load.ports();
        }
        return ports;
    }
}
