package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A hostile count never reaches the scheduler: {@code Count = 2000000000} through {@code PUT /v1/jobs} (JSON, and
 * HCL parsed by {@code /v1/jobs/parse}) and through {@code PUT /v1/job/:id/scale} is refused at once with a 400 that
 * names the limit, nothing is stored, and the agent stays healthy.
 */
class JobLimitsE2EIT {
    private static final Duration ANSWER = Duration.ofSeconds(1);
    private static final String LIMIT = "exceeds the maximum of 50000 (server job_max_count)";
    private static AgentProcess agent;

    @BeforeAll
    static void start() throws Exception {
        Path dir = Files.createTempDirectory("caravan-job-limits-");
        agent = AgentProcess.startDev(dir, ", \"data_dir\": \"" + dir.resolve("data") + "\"");
    }

    @AfterAll
    static void stop() throws Exception {
        if (agent != null) {
            agent.close();
        }
    }

    /** The answer, which must come within {@link #ANSWER}. */
    private static HttpResponse<String> quickly(Callable<HttpResponse<String>> request) throws Exception {
        long started = System.nanoTime();
        HttpResponse<String> response = request.call();
        long took = System.nanoTime() - started;
        assertTrue(took < ANSWER.toNanos(), "answered in " + Duration.ofNanos(took) + ": " + response.body());
        return response;
    }

    private static void stillHealthy() throws Exception {
        assertEquals(200, agent.get("/v1/agent/health").statusCode());
    }

    @Test
    void aHugeCountIsRefusedAtRegistrationAndNothingIsStored() throws Exception {
        String job = """
                {"Job": {"ID": "huge", "Type": "batch", "TaskGroups": [{"Name": "g", "Count": 2000000000,
                  "Tasks": [{"Name": "t", "Driver": "raw_exec", "Config": {"command": "/bin/true"}}]}]}}
                """;
        HttpResponse<String> response = quickly(() -> agent.putForm("/v1/jobs", job));
        assertEquals(400, response.statusCode(), response.body());
        assertTrue(response.body().contains("TaskGroups[0].Count: task group \"g\" count 2000000000 " + LIMIT),
                response.body());

        // The HCL path: the parsed job is the same JSON, refused the same way.
        HttpResponse<String> parsed = agent.putForm("/v1/jobs/parse", AgentProcess.JSON.writeValueAsString(
                AgentProcess.JSON.createObjectNode().put("JobHCL", """
                        job "huge-hcl" {
                          type = "batch"
                          group "g" {
                            count = 2000000000
                            task "t" {
                              driver = "raw_exec"
                              config { command = "/bin/true" }
                            }
                          }
                        }
                        """)));
        assertEquals(200, parsed.statusCode(), parsed.body());
        ObjectNode wrapped = AgentProcess.JSON.createObjectNode();
        wrapped.set("Job", AgentProcess.JSON.readTree(parsed.body()));
        HttpResponse<String> fromHcl = quickly(() -> agent.putForm("/v1/jobs", wrapped.toString()));
        assertEquals(400, fromHcl.statusCode(), fromHcl.body());
        assertTrue(fromHcl.body().contains(LIMIT), fromHcl.body());

        assertEquals(404, agent.get("/v1/job/huge").statusCode());
        assertEquals(404, agent.get("/v1/job/huge-hcl").statusCode());
        assertTrue(agent.json("/v1/jobs").findValuesAsText("ID").stream().noneMatch(id -> id.startsWith("huge")));
        stillHealthy();
    }

    @Test
    void aHugeScaleIsRefusedAndTheJobKeepsItsCount() throws Exception {
        HttpResponse<String> registered = agent.putForm("/v1/jobs", """
                {"Job": {"ID": "small", "Type": "batch", "TaskGroups": [{"Name": "g", "Count": 0,
                  "Tasks": [{"Name": "t", "Driver": "raw_exec", "Config": {"command": "/bin/true"}}]}]}}
                """);
        assertEquals(200, registered.statusCode(), registered.body());
        JsonNode before = agent.json("/v1/job/small");

        for (String count : new String[] {"2000000000", "4294967297"}) {
            HttpResponse<String> response = quickly(() -> agent.putForm("/v1/job/small/scale",
                    "{\"Count\": " + count + ", \"Target\": {\"Group\": \"g\"}}"));
            assertEquals(400, response.statusCode(), response.body());
            assertTrue(response.body().contains("count " + count + " " + LIMIT), response.body());
        }

        JsonNode after = agent.json("/v1/job/small");
        assertEquals(0, after.get("TaskGroups").get(0).get("Count").asInt());
        assertEquals(before.get("JobModifyIndex").asLong(), after.get("JobModifyIndex").asLong());
        assertEquals(before.get("Version").asLong(), after.get("Version").asLong());
        stillHealthy();
        assertEquals(200, agent.delete("/v1/job/small?purge=true").statusCode());
    }
}
