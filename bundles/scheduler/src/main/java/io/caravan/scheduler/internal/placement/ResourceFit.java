package io.caravan.scheduler.internal.placement;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.caravan.api.model.AllocatedResources;
import io.caravan.api.model.NetworkResource;
import io.caravan.api.model.Node;
import io.caravan.api.model.NodeReservedResources;
import io.caravan.api.model.NodeResources;
import io.caravan.api.model.Port;
import io.caravan.api.model.Resources;
import io.caravan.api.model.Task;
import io.caravan.api.model.TaskGroup;
import io.caravan.api.model.TaskLifecycle;

/**
 * Whether a task group fits on a node next to the proposed allocations, and what it would be given: CPU (MHz),
 * reserved cores, memory, ephemeral disk, static and dynamic ports of the group network. Failures name Nomad's
 * exhausted dimension ({@code "cpu"}, {@code "cores"}, {@code "memory"}, {@code "disk"},
 * {@code "network: reserved port collision <label>=<port>"}, {@code "network: dynamic port selection failed"}).
 * Built once per selection.
 */
public final class ResourceFit {
    static final int DEFAULT_MIN_DYNAMIC_PORT = 20000;
    static final int DEFAULT_MAX_DYNAMIC_PORT = 32000;
    /** Random probes before falling back to a scan, as Nomad's port picker. */
    private static final int RANDOM_PORT_TRIES = 20;

    private final TaskGroup group;
    private final boolean oversubscription;
    private final long cpuAsk;
    private final long memoryAsk;
    private final long diskAsk;
    private final NetworkResource networkAsk;
    private final boolean wantsCores;

    public ResourceFit(TaskGroup group, boolean memoryOversubscription) {
        this.group = group;
        this.oversubscription = memoryOversubscription;
        long cpu = 0;
        long mem = 0;
        boolean cores = false;
        for (Task t : group.tasks()) {
            Resources r = t.resources();
            if (r != null) {
                cores |= cores(r) > 0;
                cpu += cores(r) > 0 ? 0 : nz(r.cpu());
                mem += nz(r.memoryMb()) + nz(r.secretsMb());
            }
        }
        wantsCores = cores;
        cpuAsk = cpu;
        memoryAsk = mem;
        diskAsk = group.ephemeralDisk() == null ? 0 : nz(group.ephemeralDisk().sizeMb());
        networkAsk = group.networks().isEmpty() ? null : group.networks().get(0);
    }

    /** Fits the group onto {@code rn}'s node: null on success (the node then carries the resources), else the dimension. */
    public String fit(RankedNode rn, EvalContext ctx) {
        Node node = rn.node();
        NodeUsage usage = rn.usage();
        long cpuOffered;
        long memoryOffered;
        long diskOffered;
        if (rn.index() >= 0) {
            NodeCapacities capacities = ctx.capacities();
            cpuOffered = capacities.cpu(rn.index());
            memoryOffered = capacities.memoryMb(rn.index());
            diskOffered = capacities.diskMb(rn.index());
        } else {
            long[] offered = new long[3];
            NodeCapacities.offered(node, offered, 0);
            cpuOffered = offered[0];
            memoryOffered = offered[1];
            diskOffered = offered[2];
        }

        NetworkResource network = null;
        List<AllocatedResources.AllocatedPort> ports = List.of();
        if (networkAsk != null) {
            PortOffer offer = assignPorts(node, usage, ctx);
            if (offer.failure != null) {
                return "network: " + offer.failure;
            }
            network = offer.network;
            ports = offer.ports;
        }

        long cpu = usage.cpu() + cpuAsk;
        List<List<Integer>> granted = null;
        long[] coreShares = null;
        if (wantsCores) {
            // Cores are handed out per task; their CPU share is the node's MHz per core.
            Cores cap = ctx.cores(rn);
            BitSet taken = (BitSet) usage.cores().clone();
            long mhzPerCore = cap.totalCores > 0 ? cpuOffered / cap.totalCores : 0;
            granted = new ArrayList<>(group.tasks().size());
            coreShares = new long[group.tasks().size()];
            for (int i = 0; i < group.tasks().size(); i++) {
                Resources r = group.tasks().get(i).resources();
                int want = r == null ? 0 : cores(r);
                List<Integer> got = want == 0 ? List.of() : takeCores(cap, taken, want);
                if (got == null) {
                    return "cores";
                }
                granted.add(got);
                coreShares[i] = want * mhzPerCore;
                cpu += coreShares[i];
            }
        }
        long memory = usage.memoryMb() + memoryAsk;
        if (cpu > cpuOffered) {
            return "cpu";
        }
        if (memory > memoryOffered) {
            return "memory";
        }
        if (usage.diskMb() + diskAsk > diskOffered) {
            return "disk";
        }
        // Only the chosen node's resources are ever read: build them on demand.
        List<List<Integer>> grantedCores = granted;
        long[] shares = coreShares;
        NetworkResource offeredNetwork = network;
        List<AllocatedResources.AllocatedPort> offeredPorts = ports;
        rn.fitted(() -> allocated(grantedCores, shares, offeredNetwork, offeredPorts), cpu, cpuOffered, memory,
                memoryOffered);
        return null;
    }

    private AllocatedResources allocated(List<List<Integer>> grantedCores, long[] coreShares, NetworkResource network,
                                         List<AllocatedResources.AllocatedPort> ports) {
        Map<String, AllocatedResources.TaskResources> tasks = new LinkedHashMap<>();
        Map<String, TaskLifecycle> lifecycles = new LinkedHashMap<>();
        for (int i = 0; i < group.tasks().size(); i++) {
            Task t = group.tasks().get(i);
            Resources r = t.resources();
            boolean coresTask = grantedCores != null && !grantedCores.get(i).isEmpty();
            long shares = coresTask ? coreShares[i] : (r == null ? 0 : nz(r.cpu()));
            long mem = r == null ? 0 : nz(r.memoryMb()) + nz(r.secretsMb());
            long memMax = oversubscription && r != null && nz(r.memoryMaxMb()) > 0
                    ? nz(r.memoryMaxMb()) + nz(r.secretsMb()) : 0;
            tasks.put(t.name(), new AllocatedResources.TaskResources(
                    new AllocatedResources.Cpu(shares, coresTask ? grantedCores.get(i) : List.of()),
                    new AllocatedResources.Memory(mem, memMax), List.of(), List.of()));
            if (t.lifecycle() != null) {
                lifecycles.put(t.name(), t.lifecycle());
            }
        }
        AllocatedResources.Shared shared = new AllocatedResources.Shared(
                network == null ? List.of() : List.of(network), diskAsk, ports);
        return new AllocatedResources(tasks, lifecycles, shared);
    }

    private static List<Integer> takeCores(Cores cap, BitSet taken, int want) {
        List<Integer> out = new ArrayList<>(want);
        for (int core : cap.reservableCores) {
            if (!taken.get(core) && !cap.reservedCores.get(core)) {
                out.add(core);
                taken.set(core);
                if (out.size() == want) {
                    return out;
                }
            }
        }
        return null;
    }

    private record PortOffer(NetworkResource network, List<AllocatedResources.AllocatedPort> ports, String failure) {
        static PortOffer failed(String why) {
            return new PortOffer(null, null, why);
        }
    }

    private PortOffer assignPorts(Node node, NodeUsage usage, EvalContext ctx) {
        BitSet used = usage.ports();
        BitSet reserved = ctx.reservedPorts(node);
        BitSet mine = new BitSet();
        String ip = hostIp(node);
        List<AllocatedResources.AllocatedPort> ports = new ArrayList<>();
        List<Port> statics = new ArrayList<>();
        for (Port p : networkAsk.reservedPorts()) {
            if ((used.get(p.value()) && !p.ignoreCollision()) || reserved.get(p.value()) || mine.get(p.value())) {
                return PortOffer.failed("reserved port collision " + p.label() + "=" + p.value());
            }
            mine.set(p.value());
            statics.add(p);
            ports.add(new AllocatedResources.AllocatedPort(p.label(), p.value(), mappedTo(p, p.value()), ip));
        }
        int min = portBound(node, true);
        int max = portBound(node, false);
        List<Port> dynamics = new ArrayList<>();
        for (Port p : networkAsk.dynamicPorts()) {
            int value = pickPort(min, max, used, reserved, mine, ctx);
            if (value < 0) {
                return PortOffer.failed("dynamic port selection failed");
            }
            mine.set(value);
            Port assigned = new Port(p.label(), value, mappedTo(p, value), p.hostNetwork(), p.ignoreCollision());
            dynamics.add(assigned);
            ports.add(new AllocatedResources.AllocatedPort(p.label(), value, assigned.to(), ip));
        }
        NetworkResource n = networkAsk;
        NetworkResource offered = new NetworkResource(n.mode(), n.device(), n.cidr(), ip, n.hostname(), n.mBits(),
                n.dns(), statics, dynamics, n.cni());
        return new PortOffer(offered, ports, null);
    }

    /** Nomad maps {@code to = -1} to the host port itself. */
    private static int mappedTo(Port p, int value) {
        return p.to() == -1 ? value : p.to();
    }

    private static int pickPort(int min, int max, BitSet used, BitSet reserved, BitSet mine, EvalContext ctx) {
        if (max < min) {
            return -1;
        }
        for (int i = 0; i < RANDOM_PORT_TRIES; i++) {
            int candidate = min + ctx.random().nextInt(max - min + 1);
            if (free(candidate, used, reserved, mine)) {
                return candidate;
            }
        }
        for (int candidate = min; candidate <= max; candidate++) {
            if (free(candidate, used, reserved, mine)) {
                return candidate;
            }
        }
        return -1;
    }

    private static boolean free(int port, BitSet used, BitSet reserved, BitSet mine) {
        return !used.get(port) && !reserved.get(port) && !mine.get(port);
    }

    private static int portBound(Node node, boolean lower) {
        NodeResources r = node.nodeResources();
        int v = r == null ? 0 : (lower ? r.minDynamicPort() : r.maxDynamicPort());
        return v > 0 ? v : (lower ? DEFAULT_MIN_DYNAMIC_PORT : DEFAULT_MAX_DYNAMIC_PORT);
    }

    private static String hostIp(Node node) {
        if (node.nodeResources() != null) {
            for (NetworkResource n : node.nodeResources().networks()) {
                if (n.ip() != null && !n.ip().isEmpty()) {
                    return n.ip();
                }
            }
        }
        return "";
    }

    private static int cores(Resources r) {
        return r.cores() == null ? 0 : r.cores();
    }

    private static long nz(Integer v) {
        return v == null ? 0 : v;
    }

    /** The node's cores: how many, which may be reserved for tasks, and which it keeps back. */
    record Cores(int totalCores, List<Integer> reservableCores, BitSet reservedCores) {
        static Cores of(Node node) {
            NodeResources r = node.nodeResources();
            NodeReservedResources k = node.reservedResources();
            BitSet reservedCores = new BitSet();
            if (k != null && k.cpu() != null) {
                k.cpu().reservedCpuCores().forEach(reservedCores::set);
            }
            int total = r == null || r.cpu() == null ? 0 : r.cpu().totalCpuCores();
            List<Integer> reservable = r == null || r.cpu() == null ? List.of() : r.cpu().reservableCpuCores();
            return new Cores(total, reservable, reservedCores);
        }
    }
}
