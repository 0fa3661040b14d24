package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * Test hygiene: no task process outlives the agent a test stopped, whether the jobs were stopped first
 * ({@link DevAgent#close}) or the agent was simply stopped ({@link AgentProcess#close} kills what is left under its
 * data directory).
 */
class TaskCleanupE2EIT {
    private static final Duration WAIT = Duration.ofSeconds(60);

    /** A service that loops forever in its alloc dir, as ServicesE2EIT's and JobFixesE2EIT's tasks do. */
    private static void runForever(AgentProcess agent, String id) throws Exception {
        var response = agent.putForm("/v1/jobs", """
                {"Job": {"ID": "%s", "Type": "service", "Datacenters": ["dc1"], "TaskGroups": [{"Name": "g",
                  "Tasks": [{"Name": "t", "Driver": "raw_exec", "Config": {"command": "/bin/sh", "args": ["-c",
                    "while true; do sleep 0.5; done"]}}]}]}}
                """.formatted(id));
        assertEquals(200, response.statusCode(), response.body());
        AgentProcess.await("the task runs", WAIT, () -> {
            var allocs = agent.json("/v1/job/" + id + "/allocations");
            return allocs.size() == 1 && allocs.get(0).path("ClientStatus").asText().equals("running");
        });
    }

    @Test
    void closingADevAgentStopsItsJobsAndLeavesNoProcess() throws Exception {
        Path dir;
        try (DevAgent dev = DevAgent.start("caravan-cleanup-dev-")) {
            dir = dev.dir();
            runForever(dev.agent(), "loop");
            assertTrue(!TaskProcesses.under(dir).isEmpty(), "the task runs under the test's directory");
        }
        assertEquals(List.of(), TaskProcesses.under(dir));
        assertTrue(!Files.exists(dir));
    }

    @Test
    void stoppingAnAgentWithoutStoppingItsJobsKillsWhatIsLeft() throws Exception {
        Path dir = Files.createTempDirectory("caravan-cleanup-agent-");
        try {
            String data = ", \"data_dir\": \"" + dir.resolve("data") + "\"";
            try (AgentProcess agent = AgentProcess.startDev(dir, data)) {
                AgentProcess.await("the client node is ready", WAIT, () -> agent.json("/v1/nodes")
                        .findValues("Status").stream().anyMatch(s -> s.asText().equals("ready")));
                runForever(agent, "orphan");
            }
            assertEquals(List.of(), TaskProcesses.under(dir));
        } finally {
            AgentProcess.deleteTree(dir);
        }
    }
}
