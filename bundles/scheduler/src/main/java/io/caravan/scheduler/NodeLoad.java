package io.caravan.scheduler;

import java.util.Arrays;
import java.util.BitSet;
import java.util.Collection;

import io.caravan.api.model.AllocatedResources;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.NetworkResource;
import io.caravan.api.model.Port;

/**
 * What the live allocations on one node use: CPU shares, memory, disk, reserved cores and host ports. The server's
 * state keeps one per node, updated with every allocation written, so that placing and verifying read one value per
 * node rather than every allocation on it (whose number grows with the cluster's age and size). Immutable; cores and
 * ports are multisets, so removing one allocation's port leaves another's use of it counted.
 */
public final class NodeLoad {
    private static final int[] NONE_USED = new int[0];
    /** No allocations. */
    public static final NodeLoad EMPTY = new NodeLoad(0, 0, 0, NONE_USED, NONE_USED);

    private final long cpu;
    private final long memoryMb;
    private final long diskMb;
    private final int[] cores; // sorted, repeats allowed
    private final int[] ports; // sorted, repeats allowed

    private NodeLoad(long cpu, long memoryMb, long diskMb, int[] cores, int[] ports) {
        this.cpu = cpu;
        this.memoryMb = memoryMb;
        this.diskMb = diskMb;
        this.cores = cores;
        this.ports = ports;
    }

    /** The load of the live (non-terminal) allocations among {@code allocs}. */
    public static NodeLoad of(Collection<Allocation> allocs) {
        NodeLoad load = EMPTY;
        for (Allocation a : allocs) {
            if (!a.terminal() && a.allocatedResources() != null) {
                load = load.plus(a.allocatedResources());
            }
        }
        return load;
    }

    /** What a live allocation adds to its node's load: its resources, null while terminal. */
    public static AllocatedResources contribution(Allocation alloc) {
        return alloc.terminal() ? null : alloc.allocatedResources();
    }

    public NodeLoad plus(AllocatedResources r) {
        return change(r, 1);
    }

    /** Without an allocation's resources that were added before. */
    public NodeLoad minus(AllocatedResources r) {
        return change(r, -1);
    }

    private NodeLoad change(AllocatedResources r, int sign) {
        if (r == null) {
            return this;
        }
        long c = 0;
        long m = 0;
        BitSet ownCores = null;
        BitSet ownPorts = null;
        for (AllocatedResources.TaskResources t : r.tasks().values()) {
            if (t.cpu() != null) {
                c += t.cpu().cpuShares();
                for (int core : t.cpu().reservedCores()) {
                    ownCores = set(ownCores, core);
                }
            }
            if (t.memory() != null) {
                m += t.memory().memoryMb();
            }
            ownPorts = addPorts(ownPorts, t.networks());
        }
        long d = 0;
        if (r.shared() != null) {
            d = r.shared().diskMb();
            for (AllocatedResources.AllocatedPort p : r.shared().ports()) {
                if (p.value() > 0) {
                    ownPorts = set(ownPorts, p.value());
                }
            }
            ownPorts = addPorts(ownPorts, r.shared().networks());
        }
        return new NodeLoad(cpu + sign * c, memoryMb + sign * m, diskMb + sign * d,
                ownCores == null ? cores : merge(cores, ownCores, sign),
                ownPorts == null ? ports : merge(ports, ownPorts, sign));
    }

    private static BitSet addPorts(BitSet into, Collection<NetworkResource> networks) {
        for (NetworkResource n : networks) {
            for (Port p : n.reservedPorts()) {
                if (p.value() > 0) {
                    into = set(into, p.value());
                }
            }
            for (Port p : n.dynamicPorts()) {
                if (p.value() > 0) {
                    into = set(into, p.value());
                }
            }
        }
        return into;
    }

    private static BitSet set(BitSet bits, int value) {
        BitSet out = bits == null ? new BitSet() : bits;
        out.set(value);
        return out;
    }

    /** {@code values} with each of {@code own} once more ({@code sign} 1) or once less (-1). */
    private static int[] merge(int[] values, BitSet own, int sign) {
        if (sign > 0) {
            int[] out = Arrays.copyOf(values, values.length + own.cardinality());
            int n = values.length;
            for (int v = own.nextSetBit(0); v >= 0; v = own.nextSetBit(v + 1)) {
                out[n++] = v;
            }
            Arrays.sort(out);
            return out;
        }
        int[] out = new int[values.length];
        int n = 0;
        BitSet left = (BitSet) own.clone();
        for (int v : values) {
            if (left.get(v)) {
                left.clear(v); // one use of it goes; another allocation's use stays
            } else {
                out[n++] = v;
            }
        }
        return n == 0 ? NONE_USED : Arrays.copyOf(out, n);
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

    /** The reserved cores in use. */
    public BitSet cores() {
        return bits(cores);
    }

    /** The host ports in use. */
    public BitSet ports() {
        return bits(ports);
    }

    /** Whether two allocations use the same host port. */
    public boolean portCollision() {
        for (int i = 1; i < ports.length; i++) {
            if (ports[i] == ports[i - 1]) {
                return true;
            }
        }
        return false;
    }

    private static BitSet bits(int[] values) {
        BitSet out = new BitSet();
        for (int v : values) {
            out.set(v);
        }
        return out;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NodeLoad l && cpu == l.cpu && memoryMb == l.memoryMb && diskMb == l.diskMb
                && Arrays.equals(cores, l.cores) && Arrays.equals(ports, l.ports);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(cpu) * 31 + Long.hashCode(memoryMb) * 17 + Long.hashCode(diskMb)
                + Arrays.hashCode(cores) + Arrays.hashCode(ports);
    }

    @Override
    public String toString() {
        return "NodeLoad[cpu=" + cpu + ", memoryMb=" + memoryMb + ", diskMb=" + diskMb + ", cores="
                + Arrays.toString(cores) + ", ports=" + Arrays.toString(ports) + "]";
    }
}
