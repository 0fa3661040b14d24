package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Garbage collection and evaluation deletes on a dev agent, from the command line: {@code system gc} removes a
 * finished batch job with its evaluations and allocations; with the eval broker paused, registrations stay pending,
 * {@code eval delete -filter} removes exactly the matching evaluations, and resuming the broker schedules the rest.
 */
class SystemGcE2EIT {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static DevAgent dev;
    private static AgentProcess agent;

    @BeforeAll
    static void start() throws Exception {
        dev = DevAgent.start("caravan-gc-");
        agent = dev.agent();
    }

    @AfterAll
    static void stop() throws Exception {
        if (dev != null) {
            dev.close();
        }
    }

    record Result(int code, String output) {}

    /** {@code caravan <words> -address=<agent> <flags and arguments>}: its exit code and output. */
    private static Result cli(String... args) throws Exception {
        List<String> command = new ArrayList<>();
        int words = 0;
        while (words < args.length && !args[words].startsWith("-")) {
            command.add(args[words++]);
        }
        command.add("-address=" + agent.address());
        command.addAll(List.of(args).subList(words, args.length));
        Path out = Files.createTempFile(dev.dir(), "cli-", ".out");
        Process p = AgentProcess.run(out, command.toArray(String[]::new));
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the CLI finishes");
        return new Result(p.exitValue(), Files.readString(out));
    }

    private static String register(String id, String type, String command) throws Exception {
        var response = agent.putForm("/v1/jobs", """
                {"Job": {"ID": "%s", "Type": "%s", "Datacenters": ["dc1"],
                 "TaskGroups": [{"Name": "g", "Tasks": [{"Name": "t", "Driver": "raw_exec",
                   "Config": {"command": "/bin/sh", "args": ["-c", "%s"]}}]}]}}
                """.formatted(id, type, command));
        assertEquals(200, response.statusCode(), response.body());
        return AgentProcess.JSON.readTree(response.body()).get("EvalID").asText();
    }

    private static List<String> evalStatuses(String jobId) {
        List<String> out = new ArrayList<>();
        agent.json("/v1/evaluations?job=" + jobId).forEach(e -> out.add(e.get("Status").asText()));
        return out;
    }

    @Test
    void systemGcRemovesAFinishedBatchJobWithItsEvaluationsAndAllocations() throws Exception {
        String evalId = register("gc-batch", "batch", "true");
        AgentProcess.await("the batch job finishes", WAIT, () -> "dead".equals(agent.json("/v1/job/gc-batch")
                .path("Status").asText()));
        JsonNode allocs = agent.json("/v1/job/gc-batch/allocations");
        assertEquals(1, allocs.size());
        String allocId = allocs.get(0).get("ID").asText();
        register("gc-service", "service", "sleep 600");
        AgentProcess.await("the service job runs", WAIT, () -> "running".equals(agent.json("/v1/job/gc-service")
                .path("Status").asText()));

        Result gc = cli("system", "gc");
        assertEquals(0, gc.code(), gc.output());

        assertEquals(404, agent.get("/v1/job/gc-batch").statusCode());
        assertEquals(404, agent.get("/v1/evaluation/" + evalId).statusCode());
        assertEquals(404, agent.get("/v1/allocation/" + allocId).statusCode());
        assertEquals("running", agent.json("/v1/job/gc-service").path("Status").asText(),
                "a job with a running allocation stays");
        assertEquals(200, agent.delete("/v1/job/gc-service?purge=true").statusCode());

        Result reconcile = cli("system", "reconcile", "summaries");
        assertEquals(0, reconcile.code(), reconcile.output());
        assertTrue(reconcile.output().contains("Successfully reconciled job summaries"), reconcile.output());
    }

    @Test
    void evalDeleteByFilterWithTheBrokerPausedDeletesOnlyTheMatches() throws Exception {
        var refused = agent.call("DELETE", "/v1/evaluations", null, "{\"Filter\": \"JobID == \\\"held-a\\\"\"}");
        assertEquals(400, refused.statusCode(), refused.body());
        assertTrue(refused.body().contains("eval broker must be paused"), refused.body());

        assertEquals(0, cli("operator", "scheduler", "set-config", "-pause-eval-broker=true").code());
        try {
            register("held-a", "batch", "true");
            register("held-b", "batch", "true");
            Thread.sleep(2000);
            assertEquals(List.of("pending"), evalStatuses("held-a"), "the paused broker hands nothing out");

            JsonNode count = agent.json("/v1/evaluations/count?filter="
                    + java.net.URLEncoder.encode("JobID == \"held-a\"", java.nio.charset.StandardCharsets.UTF_8));
            assertEquals(1, count.get("Count").asInt());
            Result deleted = cli("eval", "delete", "-yes", "-filter", "JobID == \"held-a\"");
            assertEquals(0, deleted.code(), deleted.output());
            assertTrue(deleted.output().contains("Successfully deleted 1 evaluation"), deleted.output());
            assertEquals(List.of(), evalStatuses("held-a"));
            assertEquals(List.of("pending"), evalStatuses("held-b"));
        } finally {
            assertEquals(0, cli("operator", "scheduler", "set-config", "-pause-eval-broker=false").code());
        }
        AgentProcess.await("held-b is scheduled once the broker resumes", WAIT,
                () -> evalStatuses("held-b").equals(List.of("complete")));
        assertEquals(0, agent.json("/v1/job/held-a/allocations").size(), "its evaluation was deleted: never placed");
    }
}
