package io.caravan.scheduler.testing;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.caravan.api.model.DrainStrategy;
import io.caravan.api.model.DriverInfo;
import io.caravan.api.model.HostVolumeInfo;
import io.caravan.api.model.NetworkResource;
import io.caravan.api.model.Node;
import io.caravan.api.model.NodeReservedResources;
import io.caravan.api.model.NodeResources;

/** A node builder for tests: a ready, eligible linux node with raw_exec, 4000 MHz, 8 GiB, 100 GiB disk. */
public final class TestNodes {
    private final String id;
    private String datacenter = "dc1";
    private String nodeClass = "";
    private String pool = Node.DEFAULT_POOL;
    private String status = Node.STATUS_READY;
    private String eligibility = Node.ELIGIBLE;
    private DrainStrategy drain;
    private final Map<String, String> attributes = new HashMap<>();
    private final Map<String, String> meta = new HashMap<>();
    private final Map<String, DriverInfo> drivers = new HashMap<>();
    private final Map<String, HostVolumeInfo> volumes = new HashMap<>();
    private long cpu = 4000;
    private long memory = 8192;
    private long disk = 100_000;
    private int cores = 4;
    private String reservedPorts;
    private int minPort;
    private int maxPort;

    private TestNodes(String id) {
        this.id = id;
        attributes.put("kernel.name", "linux");
        attributes.put("cpu.arch", "amd64");
        attributes.put("unique.hostname", id + ".local");
        attributes.put("driver.raw_exec", "1");
        drivers.put("raw_exec", new DriverInfo(Map.of(), true, true, "healthy", null));
    }

    public static TestNodes node(String id) {
        return new TestNodes(id);
    }

    public TestNodes dc(String dc) {
        this.datacenter = dc;
        return this;
    }

    public TestNodes nodeClass(String c) {
        this.nodeClass = c;
        return this;
    }

    public TestNodes pool(String p) {
        this.pool = p;
        return this;
    }

    public TestNodes status(String s) {
        this.status = s;
        return this;
    }

    public TestNodes ineligible() {
        this.eligibility = Node.INELIGIBLE;
        return this;
    }

    public TestNodes draining() {
        this.drain = new DrainStrategy(null, false, null, null);
        this.eligibility = Node.INELIGIBLE;
        return this;
    }

    public TestNodes attr(String k, String v) {
        if (v == null) {
            attributes.remove(k);
        } else {
            attributes.put(k, v);
        }
        return this;
    }

    public TestNodes meta(String k, String v) {
        meta.put(k, v);
        return this;
    }

    public TestNodes driver(String name, boolean detected, boolean healthy) {
        drivers.put(name, new DriverInfo(Map.of(), detected, healthy, "", null));
        return this;
    }

    public TestNodes noDriverInfo(String name) {
        drivers.remove(name);
        return this;
    }

    public TestNodes hostVolume(String name, boolean readOnly) {
        volumes.put(name, new HostVolumeInfo("/srv/" + name, readOnly, null));
        return this;
    }

    public TestNodes resources(long cpuMhz, long memoryMb) {
        this.cpu = cpuMhz;
        this.memory = memoryMb;
        return this;
    }

    public TestNodes disk(long mb) {
        this.disk = mb;
        return this;
    }

    public TestNodes reservedPorts(String spec) {
        this.reservedPorts = spec;
        return this;
    }

    public TestNodes dynamicPorts(int min, int max) {
        this.minPort = min;
        this.maxPort = max;
        return this;
    }

    public Node build() {
        NodeResources resources = new NodeResources(new NodeResources.Cpu(cpu, cores, List.of(0, 1, 2, 3)), null,
                new NodeResources.Memory(memory), new NodeResources.Disk(disk),
                List.of(new NetworkResource("host", "eth0", "10.0.0.1/32", "10.0.0.1", null, 1000, null, null,
                        null, null)),
                null, null, minPort, maxPort);
        NodeReservedResources reserved = new NodeReservedResources(new NodeReservedResources.Cpu(0, List.of()),
                new NodeResources.Memory(0), new NodeResources.Disk(0),
                new NodeReservedResources.Networks(reservedPorts));
        return new Node(id, null, datacenter, id, null, null, false, attributes, resources, reserved, null, meta,
                nodeClass, pool, "", drain, eligibility, status, "", null, 0, null, drivers, null, null, volumes,
                null, null, 0, 0, 0, 1, 1);
    }
}
