package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import java.math.BigInteger;

import com.fasterxml.jackson.databind.JsonNode;
import com.hashicorp.nomad.apimodel.AllocationListStub;
import com.hashicorp.nomad.apimodel.Deployment;
import com.hashicorp.nomad.apimodel.DeploymentState;
import com.hashicorp.nomad.apimodel.DeploymentUpdateResponse;
import com.hashicorp.nomad.javasdk.NomadApiClient;
import com.hashicorp.nomad.javasdk.NomadApiConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A canary deployment on one dev agent, as Nomad's "blue/green and canary" tutorial runs it: a service of three with
 * {@code update { canary = 1, max_parallel = 1, health_check = "manual" }}; a new version places one canary beside
 * the old three and waits; the canary is marked healthy and promoted; the rest roll one at a time as each new
 * allocation is marked healthy; the deployment ends successful with three allocations of the new version, which is
 * stable. Health is set by the operator API ({@link #markHealthy}); with {@code health_check = "task_states"} the
 * client would report it instead, and only that helper would go.
 */
class DeploymentE2EIT {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static DevAgent dev;
    private static AgentProcess agent;
    private static Path dir;

    @BeforeAll
    static void start() throws Exception {
        dev = DevAgent.start("caravan-deployment-");
        agent = dev.agent();
        dir = dev.dir();
    }

    @AfterAll
    static void stop() throws Exception {
        if (dev != null) {
            dev.close();
        }
    }

    private static final String CANARY = "{\"Canary\": 1, \"MaxParallel\": 1, \"HealthCheck\": \"manual\", "
            + "\"ProgressDeadline\": 600000000000}";

    private static void register(int version) throws Exception {
        register("web", 3, CANARY, version);
    }

    /** Job {@code id}: {@code count} sleeps whose VERSION variable is {@code version}, with the update block given. */
    private static void register(String id, int count, String update, int version) throws Exception {
        var response = agent.putForm("/v1/jobs", """
                {"Job": {"ID": "%s", "Datacenters": ["dc1"],
                  "TaskGroups": [{"Name": "web", "Count": %d, "Update": %s,
                    "Tasks": [{"Name": "sleep", "Driver": "raw_exec", "Env": {"VERSION": "%d"},
                      "Config": {"command": "/bin/sleep", "args": ["600"]}}]}]}}
                """.formatted(id, count, update, version));
        assertEquals(200, response.statusCode(), response.body());
    }

    private static JsonNode post(String path, String body) throws Exception {
        var response = agent.putForm(path, body);
        assertEquals(200, response.statusCode(), path + ": " + response.body());
        return AgentProcess.JSON.readTree(response.body());
    }

    private static JsonNode latest() {
        return latest("web");
    }

    private static JsonNode latest(String job) {
        return agent.json("/v1/job/" + job + "/deployment");
    }

    private static List<JsonNode> live() {
        return live("web");
    }

    /** Live allocations of the job (not stopped), as list stubs. */
    private static List<JsonNode> live(String job) {
        List<JsonNode> out = new ArrayList<>();
        agent.json("/v1/job/" + job + "/allocations").forEach(a -> {
            if (a.get("DesiredStatus").asText().equals("run")) {
                out.add(a);
            }
        });
        return out;
    }

    /**
     * The one step the client's health reporting will take over: every running allocation of the deployment whose
     * health is not known yet is marked healthy. Returns how many were.
     */
    private static int markHealthy(String deploymentId) throws Exception {
        List<String> ids = new ArrayList<>();
        for (JsonNode a : agent.json("/v1/deployment/allocations/" + deploymentId)) {
            JsonNode status = a.path("DeploymentStatus");
            if (a.get("ClientStatus").asText().equals("running") && a.get("DesiredStatus").asText().equals("run")
                    && (status.isMissingNode() || status.isNull() || status.path("Healthy").isNull()
                    || status.path("Healthy").isMissingNode())) {
                ids.add("\"" + a.get("ID").asText() + "\"");
            }
        }
        if (!ids.isEmpty()) {
            post("/v1/deployment/allocation-health/" + deploymentId,
                    "{\"HealthyAllocationIDs\": [" + String.join(",", ids) + "]}");
        }
        return ids.size();
    }

    private static String status(String deploymentId) {
        return agent.json("/v1/deployment/" + deploymentId).path("Status").asText();
    }

    @Test
    void aCanaryIsPromotedAndTheRestRollOneAtATime() throws Exception {
        register(0);
        AgentProcess.await("version 0 runs three allocations under a deployment", WAIT,
                () -> live().stream().filter(a -> a.get("ClientStatus").asText().equals("running")).count() == 3
                        && latest().has("ID"));
        String first = latest().get("ID").asText();
        markHealthy(first);
        AgentProcess.await("the first deployment is successful", WAIT, () -> status(first).equals("successful"));
        assertTrue(agent.json("/v1/job/web").get("Stable").asBoolean(), "version 0 is stable");

        register(1);
        AgentProcess.await("a new deployment places one canary beside the three old allocations", WAIT, () -> {
            JsonNode d = latest();
            return !d.path("ID").asText().equals(first) && d.path("TaskGroups").path("web").path("PlacedCanaries")
                    .size() == 1 && live().size() == 4;
        });
        JsonNode d = latest();
        String second = d.get("ID").asText();
        assertEquals("running", d.get("Status").asText());
        assertEquals(1, d.get("JobVersion").asInt());
        assertEquals(1, d.get("TaskGroups").get("web").get("DesiredCanaries").asInt());
        assertEquals(3, d.get("TaskGroups").get("web").get("DesiredTotal").asInt());
        String canary = d.get("TaskGroups").get("web").get("PlacedCanaries").get(0).asText();
        assertTrue(agent.json("/v1/allocation/" + canary).get("DeploymentStatus").get("Canary").asBoolean());
        assertEquals(3, live().stream().filter(a -> a.get("JobVersion").asInt() == 0).count(), "the old ones wait");

        AgentProcess.await("the canary runs", WAIT,
                () -> agent.json("/v1/allocation/" + canary).get("ClientStatus").asText().equals("running"));
        assertEquals(1, markHealthy(second));
        AgentProcess.await("the deployment asks for promotion", WAIT, () -> latest().get("StatusDescription").asText()
                .equals("Deployment is running but requires manual promotion"));
        Thread.sleep(1000);
        assertEquals(4, live().size(), "nothing replaced before promotion");

        JsonNode promoted = post("/v1/deployment/promote/" + second, "{\"All\": true}");
        assertTrue(promoted.get("EvalID").asText().length() > 0);
        AgentProcess.await("the rest roll one at a time, each marked healthy as it runs", Duration.ofSeconds(120),
                () -> {
                    try {
                        List<JsonNode> now = live();
                        long newPending = now.stream().filter(a -> a.get("JobVersion").asInt() == 1
                                && !a.get("ClientStatus").asText().equals("running")).count();
                        assertTrue(now.stream().filter(a -> a.get("JobVersion").asInt() == 1).count()
                                - now.stream().filter(a -> a.get("JobVersion").asInt() == 1
                                && a.path("DeploymentStatus").path("Healthy").asBoolean(false)).count() <= 1,
                                "max_parallel = 1: at most one new allocation not yet healthy");
                        if (newPending == 0) {
                            markHealthy(second);
                        }
                        return status(second).equals("successful");
                    } catch (AssertionError e) {
                        throw e;
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                });
        JsonNode done = agent.json("/v1/deployment/" + second);
        assertEquals("Deployment completed successfully", done.get("StatusDescription").asText());
        assertEquals(3, done.get("TaskGroups").get("web").get("HealthyAllocs").asInt());
        AgentProcess.await("the old allocations are stopped", WAIT, () -> live().size() == 3);
        assertTrue(live().stream().allMatch(a -> a.get("JobVersion").asInt() == 1), live().toString());
        JsonNode job = agent.json("/v1/job/web");
        assertEquals(1, job.get("Version").asInt());
        assertTrue(job.get("Stable").asBoolean(), "version 1 is stable");
    }

    @Test
    void anUnhealthyNewVersionIsRolledBackToTheLastStableOne() throws Exception {
        String update = "{\"MaxParallel\": 1, \"AutoRevert\": true, \"HealthCheck\": \"manual\", "
                + "\"ProgressDeadline\": 600000000000}";
        register("api", 2, update, 0);
        AgentProcess.await("version 0 runs two allocations under a deployment", WAIT,
                () -> live("api").stream().filter(a -> a.get("ClientStatus").asText().equals("running")).count() == 2
                        && latest("api").has("ID"));
        String first = latest("api").get("ID").asText();
        markHealthy(first);
        AgentProcess.await("version 0 is stable", WAIT, () -> status(first).equals("successful")
                && agent.json("/v1/job/api").get("Stable").asBoolean());

        register("api", 2, update, 1);
        AgentProcess.await("one new allocation runs under the new deployment", WAIT, () -> {
            JsonNode d = latest("api");
            return !d.path("ID").asText().equals(first) && live("api").stream().anyMatch(a ->
                    a.get("JobVersion").asInt() == 1 && a.get("ClientStatus").asText().equals("running"));
        });
        String second = latest("api").get("ID").asText();
        String bad = live("api").stream().filter(a -> a.get("JobVersion").asInt() == 1).findFirst().orElseThrow()
                .get("ID").asText();
        post("/v1/deployment/allocation-health/" + second, "{\"UnhealthyAllocationIDs\": [\"" + bad + "\"]}");
        AgentProcess.await("the deployment fails and the job is reverted", WAIT, () -> status(second).equals("failed"));
        assertEquals("Failed due to unhealthy allocations - rolling back to job version 0",
                agent.json("/v1/deployment/" + second).get("StatusDescription").asText());
        JsonNode job = agent.json("/v1/job/api");
        assertEquals(2, job.get("Version").asInt(), "the stable spec comes back as a new version");
        assertEquals("0", job.get("TaskGroups").get(0).get("Tasks").get(0).get("Env").get("VERSION").asText());

        AgentProcess.await("the reverted version rolls out and succeeds", Duration.ofSeconds(120), () -> {
            try {
                JsonNode d = latest("api");
                if (d.path("ID").asText().equals(second)) {
                    return false;
                }
                markHealthy(d.get("ID").asText());
                return status(d.get("ID").asText()).equals("successful");
            } catch (AssertionError e) {
                throw e;
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        AgentProcess.await("two allocations of version 2 run", WAIT, () -> {
            List<JsonNode> now = live("api");
            return now.size() == 2 && now.stream().allMatch(a -> a.get("JobVersion").asInt() == 2
                    && a.get("ClientStatus").asText().equals("running"));
        });
        assertTrue(agent.json("/v1/job/api").get("Stable").asBoolean(), "the reverted version is stable");
    }

    @Test
    void theNomadSdkReadsAndDrivesDeployments() throws Exception {
        try (NomadApiClient nomad = new NomadApiClient(new NomadApiConfiguration.Builder()
                .setAddress(agent.address()).build())) {
            String update = "{\"MaxParallel\": 1, \"HealthCheck\": \"manual\"}";
            register("sdk", 1, update, 0);
            AgentProcess.await("the first allocation runs under a deployment", WAIT, () -> latest("sdk").has("ID")
                    && live("sdk").stream().anyMatch(a -> a.get("ClientStatus").asText().equals("running")));
            Deployment d = nomad.getJobsApi().latestDeployment("sdk").getValue();
            assertEquals("running", d.getStatus());
            assertEquals(BigInteger.ZERO, d.getJobVersion());
            DeploymentState s = d.getTaskGroups().get("web");
            assertEquals(1, s.getDesiredTotal());
            assertTrue(s.getRequireProgressBy() != null, "RequireProgressBy parses as a time");
            assertTrue(nomad.getDeploymentsApi().list().getValue().stream().anyMatch(x -> x.getId().equals(d.getId())));
            assertEquals(1, nomad.getJobsApi().deployments("sdk").getValue().size());
            List<AllocationListStub> allocs = nomad.getDeploymentsApi().allocations(d.getId()).getValue();
            assertEquals(1, allocs.size());
            DeploymentUpdateResponse health = nomad.getDeploymentsApi().setAllocHealth(d.getId(),
                    List.of(allocs.get(0).getId()), List.of()).getValue();
            assertTrue(health.getEvalId() != null && !health.getEvalId().isEmpty());
            AgentProcess.await("the deployment is successful", WAIT, () -> status(d.getId()).equals("successful"));

            register("sdk", 1, update, 1);
            AgentProcess.await("a second deployment", WAIT,
                    () -> !latest("sdk").path("ID").asText().equals(d.getId()));
            String second = nomad.getJobsApi().latestDeployment("sdk").getValue().getId();
            nomad.getDeploymentsApi().pause(second, true);
            assertEquals("paused", nomad.getDeploymentsApi().info(second).getValue().getStatus());
            nomad.getDeploymentsApi().pause(second, false);
            assertEquals("running", nomad.getDeploymentsApi().info(second).getValue().getStatus());
            DeploymentUpdateResponse failed = nomad.getDeploymentsApi().fail(second).getValue();
            assertEquals(null, failed.getRevertedJobVersion(), "no auto_revert");
            assertEquals("failed", nomad.getDeploymentsApi().info(second).getValue().getStatus());

            nomad.getJobsApi().revert("sdk", BigInteger.ZERO, BigInteger.ONE);
            AgentProcess.await("version 0's spec is version 2", WAIT,
                    () -> agent.json("/v1/job/sdk").get("Version").asInt() == 2);
            nomad.getJobsApi().stable("sdk", BigInteger.valueOf(2), true);
            assertTrue(agent.json("/v1/job/sdk").get("Stable").asBoolean());
        }
    }
}
