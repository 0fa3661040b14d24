package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.time.Duration;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

/**
 * Draining the dev agent's only node moves its work off: the allocation is stopped, its replacement waits in a
 * blocked evaluation (no other node), the drain completes and leaves the node ineligible; making it eligible again
 * wakes the blocked evaluation and the job runs again.
 */
class DrainE2EIT {
    private static final Duration WAIT = Duration.ofSeconds(60);


    private static long running(AgentProcess agent) {
        long n = 0;
        for (JsonNode a : agent.json("/v1/job/web/allocations")) {
            if (a.get("ClientStatus").asText().equals("running") && a.get("DesiredStatus").asText().equals("run")) {
                n++;
            }
        }
        return n;
    }

    @Test
    void drainMovesWorkOffAndEligibilityBringsItBack() throws Exception {
        try (AgentProcess agent = AgentProcess.startDev(Files.createTempDirectory("caravan-drain-"), "")) {
            AgentProcess.await("the node is ready", WAIT, () -> agent.json("/v1/nodes").findValues("Status").stream()
                    .anyMatch(s -> s.asText().equals("ready")));
            String nodeId = agent.json("/v1/nodes").get(0).get("ID").asText();
            var registered = agent.putForm("/v1/jobs", """
                    {"Job": {"ID": "web", "Datacenters": ["dc1"], "TaskGroups": [{"Name": "web",
                      "Tasks": [{"Name": "sleep", "Driver": "raw_exec",
                        "Config": {"command": "/bin/sleep", "args": ["60"]}}]}]}}
                    """);
            assertEquals(200, registered.statusCode(), registered.body());
            AgentProcess.await("the job runs", WAIT, () -> running(agent) == 1);

            var drain = agent.putForm("/v1/node/" + nodeId + "/drain",
                    "{\"DrainSpec\": {\"Deadline\": 60000000000, \"IgnoreSystemJobs\": false}}");
            assertEquals(200, drain.statusCode(), drain.body());
            AgentProcess.await("the drain completes", WAIT, () -> {
                JsonNode node = agent.json("/v1/node/" + nodeId);
                return node.get("DrainStrategy").isNull()
                        && node.path("LastDrain").path("Status").asText().equals("complete");
            });
            JsonNode node = agent.json("/v1/node/" + nodeId);
            assertEquals("ineligible", node.get("SchedulingEligibility").asText());
            assertEquals(0, running(agent));
            assertTrue(agent.json("/v1/job/web/evaluations").findValues("Status").stream()
                    .anyMatch(s -> s.asText().equals("blocked")), "the replacement waits for capacity");

            var eligible = agent.putForm("/v1/node/" + nodeId + "/eligibility",
                    "{\"NodeID\": \"" + nodeId + "\", \"Eligibility\": \"eligible\"}");
            assertEquals(200, eligible.statusCode(), eligible.body());
            AgentProcess.await("the job runs again", WAIT, () -> running(agent) == 1);
            assertEquals(200, agent.delete("/v1/job/web?purge=true").statusCode());
        }
    }
}
