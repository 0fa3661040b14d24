package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;

import io.caravan.api.json.NomadJson;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Node;
import io.caravan.scheduler.NodeLoad;
import org.junit.jupiter.api.Test;

class NodeFitTest {
    private static Node node() throws Exception {
        return NomadJson.mapper().readValue("""
                {"ID": "n", "NodeResources": {"Cpu": {"CpuShares": 1000}, "Memory": {"MemoryMB": 1024},
                                              "Disk": {"DiskMB": 1000}},
                 "ReservedResources": {"Cpu": {"CpuShares": 100}, "Memory": {"MemoryMB": 24}}}
                """, Node.class);
    }

    private static Allocation alloc(int cpu, int memory, int disk, int port) throws Exception {
        return NomadJson.mapper().readValue("""
                {"ID": "a%d%d", "AllocatedResources": {
                  "Tasks": {"t": {"Cpu": {"CpuShares": %d}, "Memory": {"MemoryMB": %d}}},
                  "Shared": {"DiskMB": %d, "Networks": [{"ReservedPorts": [{"Label": "http", "Value": %d}]}]}}}
                """.formatted(cpu, port, cpu, memory, disk, port), Allocation.class);
    }

    @Test
    void fitsUpToCapacityLessReserved() throws Exception {
        assertNull(NodeFit.check(node(), NodeLoad.of(List.of(alloc(450, 500, 500, 8080), alloc(450, 500, 500, 8081)))));
    }

    @Test
    void reportsTheExhaustedDimension() throws Exception {
        assertEquals("cpu", NodeFit.check(node(), NodeLoad.of(List.of(alloc(500, 10, 10, 1), alloc(401, 10, 10, 2)))));
        assertEquals("memory", NodeFit.check(node(), NodeLoad.of(List.of(alloc(1, 1000, 10, 1), alloc(1, 1, 10, 2)))));
        assertEquals("disk", NodeFit.check(node(), NodeLoad.of(List.of(alloc(1, 1, 1001, 1)))));
        assertEquals("network: port collision", NodeFit.check(node(),
                NodeLoad.of(List.of(alloc(1, 1, 1, 8080), alloc(2, 1, 1, 8080)))));
    }
}
