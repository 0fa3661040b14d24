package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code caravan job restart} on {@code caravan agent -dev}: both allocations of a service restarted in place. */
class JobRestartE2EIT {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static DevAgent dev;
    private static AgentProcess agent;
    private static Path dir;

    @BeforeAll
    static void start() throws Exception {
        dev = DevAgent.start("caravan-restart-");
        agent = dev.agent();
        dir = dev.dir();
    }

    @AfterAll
    static void stop() throws Exception {
        if (dev != null) {
            dev.close();
        }
    }

    private static List<JsonNode> running() {
        JsonNode allocs = agent.json("/v1/job/web/allocations");
        return allocs.findParents("ClientStatus").stream()
                .filter(a -> a.path("ClientStatus").asText().equals("running")).toList();
    }

    private static boolean restarted(JsonNode alloc) {
        return alloc.path("TaskStates").path("t").path("Events").findValues("Type").stream()
                .anyMatch(t -> t.asText().equals("Restart Signaled"));
    }

    @Test
    void restartsEveryRunningAllocationOneAtATime() throws Exception {
        HttpResponse<String> registered = agent.call("PUT", "/v1/jobs", null, """
                {"Job": {"ID": "web", "Update": {"MaxParallel": 0}, "TaskGroups": [{"Name": "g", "Count": 2,
                  "Tasks": [{"Name": "t", "Driver": "raw_exec",
                    "Config": {"command": "/bin/sleep", "args": ["600"]}}]}]}}""");
        assertEquals(200, registered.statusCode(), registered.body());
        AgentProcess.await("both allocations run", WAIT, () -> running().size() == 2);
        // job restart refuses to run under a deployment that is still in progress, as Nomad's (max_parallel = 0
        // spares the test the default strategy's deployment, which would take min_healthy_time to end).
        AgentProcess.await("no deployment in progress", WAIT, () -> agent.json("/v1/job/web/deployments")
                .findValues("Status").stream().allMatch(s -> List.of("successful", "failed", "cancelled")
                        .contains(s.asText())));

        Path out = Files.createTempFile(dir, "cli-", ".out");
        Process p = AgentProcess.runIn(dir, out, "job", "restart", "-address=" + agent.address(),
                "-batch-size", "1", "-yes", "web");
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the CLI finishes");
        String output = Files.readString(out);
        assertEquals(0, p.exitValue(), output);
        assertTrue(output.contains("Restarting 2 allocations"), output);
        assertTrue(output.contains("Job restart finished"), output);
        for (JsonNode stub : running()) {
            JsonNode alloc = agent.json("/v1/allocation/" + stub.path("ID").asText());
            assertTrue(restarted(alloc), alloc.toString());
        }
        assertEquals(2, running().size());
    }
}
