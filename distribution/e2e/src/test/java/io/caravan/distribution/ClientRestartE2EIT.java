package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

/**
 * The agent is killed with SIGKILL while a task runs; the task keeps running, and the agent started again on the
 * same data directory re-attaches to it (no second start) and records its exit when it comes.
 */
class ClientRestartE2EIT {
    private static final Duration WAIT = Duration.ofSeconds(60);


    @Test
    void aTaskOutlivesAKilledAgentAndItsExitIsRecordedAfterTheRestart() throws Exception {
        Path dir = Files.createTempDirectory("caravan-kill9-");
        String keys = ", \"data_dir\": \"" + dir.resolve("data") + "\"";
        Path marker = dir.resolve("go");
        String allocId;
        long taskPid;
        try (AgentProcess first = AgentProcess.startDev(dir, keys, "first.log")) {
            AgentProcess.await("the client node is ready", WAIT, () -> first.json("/v1/nodes")
                    .findValues("Status").stream().anyMatch(s -> s.asText().equals("ready")));
            // The task records its PID, then waits for the test's signal (a file) before it exits 7.
            var response = first.putForm("/v1/jobs", """
                    {"Job": {"ID": "survivor", "Type": "batch", "Datacenters": ["dc1"], "TaskGroups": [{"Name": "g",
                      "RestartPolicy": {"Attempts": 0, "Mode": "fail"},
                      "Tasks": [{"Name": "t", "Driver": "raw_exec", "Config": {"command": "/bin/sh", "args": ["-c",
                        "echo $$ > ${NOMAD_ALLOC_DIR}/pid; while [ ! -e %s ]; do sleep 0.2; done; echo done; exit 7"]}}]}]}}
                    """.formatted(marker));
            assertEquals(200, response.statusCode(), response.body());
            AgentProcess.await("the task runs", WAIT, () -> {
                JsonNode allocs = first.json("/v1/job/survivor/allocations");
                return allocs.size() == 1 && allocs.get(0).get("ClientStatus").asText().equals("running");
            });
            allocId = first.json("/v1/job/survivor/allocations").get(0).get("ID").asText();
            Path pidFile = dir.resolve("data/alloc").resolve(allocId).resolve("alloc/pid");
            AgentProcess.await("the task wrote its pid", WAIT, () -> Files.exists(pidFile));
            taskPid = Long.parseLong(Files.readString(pidFile).trim());

            first.process.destroyForcibly();
            assertTrue(first.process.waitFor(30, TimeUnit.SECONDS));
        }
        assertTrue(ProcessHandle.of(taskPid).map(ProcessHandle::isAlive).orElse(false),
                "the task survived the agent's SIGKILL");

        try (AgentProcess second = AgentProcess.startDev(dir, keys, "second.log")) {
            Thread.sleep(2000); // let the client restore and re-attach before the task ends
            Files.writeString(marker, "go");
            AgentProcess.await("the task's exit is recorded", WAIT, () -> second.json(
                    "/v1/allocation/" + allocId).get("ClientStatus").asText().equals("failed"));
            JsonNode task = second.json("/v1/allocation/" + allocId).get("TaskStates").get("t");
            assertEquals(0, task.get("Restarts").asInt());
            long starts = 0;
            String exit = "";
            for (JsonNode event : task.get("Events")) {
                if (event.get("Type").asText().equals("Started")) {
                    starts++;
                }
                if (event.get("Type").asText().equals("Terminated")) {
                    exit = event.get("ExitCode").asText();
                }
            }
            assertEquals(1, starts, "re-attached, not started again: " + task);
            assertEquals("7", exit, task.toString());
            Path stdout = dir.resolve("data/alloc").resolve(allocId).resolve("alloc/logs/t.stdout.0");
            assertEquals("done\n", Files.readString(stdout));
        }
    }
}
