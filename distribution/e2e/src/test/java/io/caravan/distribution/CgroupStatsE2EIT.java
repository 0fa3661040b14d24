package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

/**
 * An exec task's statistics come from its cgroups (memory usage as the cgroup counts it, CPU throttling), a raw_exec
 * task's from /proc. Skipped where the exec driver is not healthy (no cgroup v1, no namespaces, not root).
 */
class CgroupStatsE2EIT {
    private static final Duration WAIT = Duration.ofSeconds(60);

    private static void run(AgentProcess agent, String id, String driver) throws Exception {
        var response = agent.putForm("/v1/jobs", """
                {"Job": {"ID": "%s", "Type": "service", "Datacenters": ["dc1"], "TaskGroups": [{"Name": "g",
                  "Tasks": [{"Name": "t", "Driver": "%s", "Resources": {"CPU": 100, "MemoryMB": 64},
                    "Config": {"command": "/bin/sh", "args": ["-c",
                      "x=$(seq 1 20000); while true; do sleep 0.2; done"]}}]}]}}
                """.formatted(id, driver));
        assertEquals(200, response.statusCode(), response.body());
        AgentProcess.await(id + " runs", WAIT, () -> {
            JsonNode allocs = agent.json("/v1/job/" + id + "/allocations");
            return allocs.size() == 1 && allocs.get(0).path("ClientStatus").asText().equals("running");
        });
    }

    private static JsonNode usage(AgentProcess agent, String id) {
        String alloc = agent.json("/v1/job/" + id + "/allocations").get(0).get("ID").asText();
        return agent.json("/v1/client/allocation/" + alloc + "/stats").get("Tasks").get("t").get("ResourceUsage");
    }

    @Test
    void anExecTaskIsMeasuredFromItsCgroupsAndARawExecTaskFromProc() throws Exception {
        try (DevAgent dev = DevAgent.start("caravan-cgroup-stats-")) {
            AgentProcess agent = dev.agent();
            String node = agent.json("/v1/nodes").get(0).get("ID").asText();
            JsonNode exec = agent.json("/v1/node/" + node).path("Drivers").path("exec");
            assumeTrue(exec.path("Healthy").asBoolean(false), "exec driver unhealthy here: " + exec);

            run(agent, "in-cgroup", "exec");
            JsonNode cgroup = usage(agent, "in-cgroup");
            String memory = cgroup.get("MemoryStats").get("Measured").toString();
            assertTrue(memory.contains("\"Usage\"") && memory.contains("\"Cache\""), cgroup.toString());
            assertTrue(cgroup.get("MemoryStats").get("Usage").asLong() > 0, cgroup.toString());
            assertTrue(cgroup.get("CpuStats").get("Measured").toString().contains("Throttled Periods"),
                    cgroup.toString());

            run(agent, "in-proc", "raw_exec");
            JsonNode proc = usage(agent, "in-proc");
            assertEquals("[\"RSS\",\"Swap\"]", proc.get("MemoryStats").get("Measured").toString(), proc.toString());
            assertTrue(proc.get("MemoryStats").get("RSS").asLong() > 0, proc.toString());
        }
    }
}
