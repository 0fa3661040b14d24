package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The whole path on one dev agent, as real processes: a job registered over HTTP is scheduled by the leader, placed on
 * the agent's own client node, run by the raw_exec driver, and reported back; a job that cannot be placed shows a
 * blocked evaluation and Queued, and is placed once a reload gives the node the attribute it lacked.
 */
class SchedulingE2EIT {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static AgentProcess agent;
    private static Path dir;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("caravan-scheduling-");
        agent = AgentProcess.startDev(dir, ", \"data_dir\": \"" + dir.resolve("data") + "\"");
        AgentProcess.await("the dev agent's client node is ready with raw_exec", WAIT,
                () -> agent.json("/v1/nodes").findValues("Status").stream().anyMatch(s -> s.asText().equals("ready")));
    }

    @AfterAll
    static void stop() throws Exception {
        if (agent != null) {
            agent.close();
        }
    }


    private static String register(String jobJson) throws Exception {
        var response = agent.putForm("/v1/jobs", "{\"Job\": " + jobJson + "}");
        assertEquals(200, response.statusCode(), response.body());
        return AgentProcess.JSON.readTree(response.body()).get("EvalID").asText();
    }

    private static JsonNode onlyAlloc(String job) {
        JsonNode allocs = agent.json("/v1/job/" + job + "/allocations");
        return allocs.size() == 1 ? allocs.get(0) : null;
    }

    private static String clientStatus(String job) {
        JsonNode alloc = onlyAlloc(job);
        return alloc == null ? "" : alloc.get("ClientStatus").asText();
    }

    @Test
    void aBatchJobRunsToCompletionWithItsOutputInTheAllocationLogs() throws Exception {
        register("""
                {"ID": "hello", "Type": "batch", "Datacenters": ["dc1"], "TaskGroups": [{"Name": "say",
                  "Tasks": [{"Name": "echo", "Driver": "raw_exec",
                    "Config": {"command": "/bin/sh", "args": ["-c", "echo hello from ${NOMAD_TASK_NAME}"]}}]}]}
                """);
        AgentProcess.await("the batch allocation completes", WAIT, () -> clientStatus("hello").equals("complete"));
        JsonNode alloc = onlyAlloc("hello");
        String allocId = alloc.get("ID").asText();
        Path stdout = dir.resolve("data/alloc").resolve(allocId).resolve("alloc/logs/echo.stdout.0");
        assertEquals("hello from echo\n", Files.readString(stdout));
        JsonNode summary = agent.json("/v1/job/hello/summary").get("Summary").get("say");
        assertEquals(1, summary.get("Complete").asInt());
        AgentProcess.await("the batch job is dead", WAIT,
                () -> agent.json("/v1/job/hello").get("Status").asText().equals("dead"));
        JsonNode eval = agent.json("/v1/job/hello/evaluations").get(0);
        assertEquals("complete", eval.get("Status").asText());
    }

    @Test
    void aJobThatCannotBePlacedIsBlockedUntilANodeQualifies() throws Exception {
        String evalId = register("""
                {"ID": "racked", "Datacenters": ["dc1"],
                 "Constraints": [{"LTarget": "${meta.rack}", "RTarget": "r1", "Operand": "="}],
                 "TaskGroups": [{"Name": "web", "Tasks": [{"Name": "sleep", "Driver": "raw_exec",
                   "Config": {"command": "/bin/sleep", "args": ["60"]}}]}]}
                """);
        AgentProcess.await("the evaluation completes with a blocked follow-up", WAIT,
                () -> agent.json("/v1/evaluation/" + evalId).path("BlockedEval").asText().length() > 0);
        JsonNode eval = agent.json("/v1/evaluation/" + evalId);
        assertEquals("complete", eval.get("Status").asText());
        JsonNode failed = eval.get("FailedTGAllocs").get("web");
        assertTrue(failed.get("ConstraintFiltered").has("${meta.rack} = r1"), failed.toString());
        assertEquals("blocked", agent.json("/v1/evaluation/" + eval.get("BlockedEval").asText()).get("Status")
                .asText());
        assertEquals(1, agent.json("/v1/job/racked/summary").get("Summary").get("web").get("Queued").asInt());

        // The node gains the attribute by a reload; its re-registration wakes the blocked evaluation.
        String config = Files.readString(agent.config);
        Files.writeString(agent.config, config.substring(0, config.lastIndexOf('}'))
                + ", \"client\": {\"meta\": {\"rack\": \"r1\"}}}");
        assertEquals(200, agent.put("/v1/agent/reload").statusCode());
        AgentProcess.await("the allocation runs", WAIT, () -> clientStatus("racked").equals("running"));
        assertEquals(0, agent.json("/v1/job/racked/summary").get("Summary").get("web").get("Queued").asInt());
        assertEquals("running", agent.json("/v1/job/racked").get("Status").asText());

        // Stopping the job stops the task.
        var stop = agent.delete("/v1/job/racked");
        assertEquals(200, stop.statusCode(), stop.body());
        AgentProcess.await("the allocation is stopped and complete", WAIT, () -> {
            JsonNode a = onlyAlloc("racked");
            return a != null && a.get("DesiredStatus").asText().equals("stop")
                    && a.get("ClientStatus").asText().equals("complete");
        });
    }

    @Test
    void aStoppedAllocationIsReplaced() throws Exception {
        register("""
                {"ID": "replaced", "Datacenters": ["dc1"], "TaskGroups": [{"Name": "web",
                  "Tasks": [{"Name": "sleep", "Driver": "raw_exec",
                    "Config": {"command": "/bin/sleep", "args": ["60"]}}]}]}
                """);
        AgentProcess.await("the allocation runs", WAIT, () -> clientStatus("replaced").equals("running"));
        String first = onlyAlloc("replaced").get("ID").asText();
        var stop = agent.putForm("/v1/allocation/" + first + "/stop", "");
        assertEquals(200, stop.statusCode(), stop.body());
        assertTrue(AgentProcess.JSON.readTree(stop.body()).get("EvalID").asText().length() > 0);
        AgentProcess.await("a replacement runs and the original is stopped", WAIT, () -> {
            JsonNode allocs = agent.json("/v1/job/replaced/allocations");
            boolean stopped = false;
            boolean replacement = false;
            for (JsonNode a : allocs) {
                if (a.get("ID").asText().equals(first)) {
                    stopped = a.get("DesiredStatus").asText().equals("stop")
                            && a.get("ClientStatus").asText().equals("complete");
                } else {
                    replacement = a.get("ClientStatus").asText().equals("running");
                }
            }
            return stopped && replacement;
        });
        assertEquals(200, agent.delete("/v1/job/replaced?purge=true").statusCode());
    }
}
