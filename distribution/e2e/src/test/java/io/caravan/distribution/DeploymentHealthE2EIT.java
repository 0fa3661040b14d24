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
 * Issue 15's deployments as a user drives them, with health reported by the client from task states (no operator
 * marking, unlike {@link DeploymentE2EIT}): jobspecs in HCL run through {@code bin/caravan job run}, promotion
 * through {@code caravan deployment promote}, and {@code job run}'s own deployment monitor read from its plain
 * (non-terminal) output.
 */
class DeploymentHealthE2EIT {
    private static final Duration WAIT = Duration.ofSeconds(90);
    /** Five groups' worth of one-second min_healthy_time plus placement, on a loaded machine. */
    private static final Duration ROLL = Duration.ofSeconds(180);
    private static DevAgent dev;
    private static AgentProcess agent;
    private static Path dir;

    @BeforeAll
    static void start() throws Exception {
        dev = DevAgent.start("caravan-deployment-health-");
        agent = dev.agent();
        dir = dev.dir();
    }

    @AfterAll
    static void stop() throws Exception {
        if (dev != null) {
            dev.close();
        }
    }

    /**
     * A service of {@code count} raw_exec tasks; {@code script} is the shell the task runs, {@code version} lands in
     * its environment so every version is a destructive change; {@code update} is the group's update block's body
     * (null: no block).
     */
    private static Path jobFile(String id, int count, String update, int version, String script) throws Exception {
        Path file = dir.resolve(id + "-v" + version + ".nomad.hcl");
        Files.writeString(file, """
                job "%s" {
                  datacenters = ["dc1"]
                  type = "service"
                  group "web" {
                    count = %d
                    %s
                    restart {
                      attempts = 0
                      mode = "fail"
                    }
                    task "app" {
                      driver = "raw_exec"
                      env {
                        VERSION = "%d"
                      }
                      config {
                        command = "/bin/sh"
                        args = ["-c", "%s"]
                      }
                    }
                  }
                }
                """.formatted(id, count, update == null ? "" : "update {\n" + update + "\n}", version, script));
        return file;
    }

    private static final String SLEEP = "sleep 600";
    /** The last word of each command used here. */
    private static final java.util.Set<String> COMMANDS = java.util.Set.of("run", "promote", "apply", "unset",
            "history", "revert");

    /** The CLI's result: exit code and everything it printed. */
    private record Result(int code, String output) {}

    private static Result cli(String name, Duration limit, String... words) throws Exception {
        Path out = dir.resolve(name + ".out");
        List<String> args = new ArrayList<>(List.of(words));
        // -address goes after the command words ("job run", "job tag apply"), before the rest.
        int at = 0;
        while (!COMMANDS.contains(args.get(at))) {
            at++;
        }
        args.add(at + 1, "-address=" + agent.address());
        Process p = AgentProcess.run(out, args.toArray(String[]::new));
        if (!p.waitFor(limit.toSeconds(), TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError("caravan " + String.join(" ", words) + " did not finish within " + limit
                    + ":\n" + AgentProcess.read(out));
        }
        return new Result(p.exitValue(), AgentProcess.read(out));
    }

    private static JsonNode latest(String job) {
        return agent.json("/v1/job/" + job + "/deployment");
    }

    /** The job's deployment of {@code version}; null while there is none. */
    private static JsonNode ofVersion(String job, int version) {
        for (JsonNode d : agent.json("/v1/job/" + job + "/deployments")) {
            if (d.path("JobVersion").asInt(-1) == version) {
                return d;
            }
        }
        return null;
    }

    private static String status(String deploymentId) {
        return agent.json("/v1/deployment/" + deploymentId).path("Status").asText();
    }

    /** Live allocations of the job (desired to run, not failed or finished on the client), as list stubs. */
    private static List<JsonNode> live(String job) {
        List<JsonNode> out = new ArrayList<>();
        agent.json("/v1/job/" + job + "/allocations").forEach(a -> {
            String client = a.get("ClientStatus").asText();
            if (a.get("DesiredStatus").asText().equals("run")
                    && (client.equals("pending") || client.equals("running"))) {
                out.add(a);
            }
        });
        return out;
    }

    private static long running(List<JsonNode> allocs, int version) {
        return allocs.stream().filter(a -> a.get("JobVersion").asInt() == version
                && a.get("ClientStatus").asText().equals("running")).count();
    }

    @Test
    void aCanaryPromotedFromTheCliRollsOutWithClientReportedHealth() throws Exception {
        String update = "canary = 1\n max_parallel = 1\n min_healthy_time = \"1s\"\n healthy_deadline = \"30s\"\n"
                + " auto_promote = false";
        Result run0 = cli("canary-run0", WAIT, "job", "run", "-detach", jobFile("canary", 3, update, 0, SLEEP)
                .toString());
        assertEquals(0, run0.code(), run0.output());
        AgentProcess.await("version 0's deployment succeeds on task-state health alone", ROLL,
                () -> latest("canary").has("ID") && status(latest("canary").get("ID").asText()).equals("successful"));
        String first = latest("canary").get("ID").asText();
        JsonNode firstDone = agent.json("/v1/deployment/" + first);
        assertEquals(3, firstDone.get("TaskGroups").get("web").get("HealthyAllocs").asInt());
        for (JsonNode a : agent.json("/v1/deployment/allocations/" + first)) {
            assertTrue(a.path("DeploymentStatus").path("Healthy").asBoolean(false), "client-set health: " + a);
        }
        assertTrue(agent.json("/v1/job/canary").get("Stable").asBoolean(), "version 0 is stable");

        Result run1 = cli("canary-run1", WAIT, "job", "run", "-detach", jobFile("canary", 3, update, 1, SLEEP)
                .toString());
        assertEquals(0, run1.code(), run1.output());
        AgentProcess.await("the canary becomes healthy and the deployment waits for promotion", ROLL, () -> {
            JsonNode d = latest("canary");
            return !d.path("ID").asText().equals(first) && d.path("TaskGroups").path("web").path("HealthyAllocs")
                    .asInt() == 1 && d.path("StatusDescription").asText()
                    .equals("Deployment is running but requires manual promotion");
        });
        String second = latest("canary").get("ID").asText();
        List<JsonNode> before = live("canary");
        assertEquals(4, before.size(), "exactly one canary beside the old three: " + before);
        assertEquals(3, running(before, 0), "the old three still run");
        assertEquals(1, before.stream().filter(a -> a.get("JobVersion").asInt() == 1).count());

        Result promote = cli("canary-promote", WAIT, "deployment", "promote", second);
        assertEquals(0, promote.code(), promote.output());
        long[] mostNewUnhealthy = {0};
        AgentProcess.await("the rest roll one at a time and the deployment succeeds", ROLL, () -> {
            List<JsonNode> now = live("canary");
            long unhealthyNew = now.stream().filter(a -> a.get("JobVersion").asInt() == 1
                    && !a.path("DeploymentStatus").path("Healthy").asBoolean(false)).count();
            mostNewUnhealthy[0] = Math.max(mostNewUnhealthy[0], unhealthyNew);
            return status(second).equals("successful");
        });
        assertTrue(mostNewUnhealthy[0] <= 1, "max_parallel = 1: at most one new allocation awaiting health, saw "
                + mostNewUnhealthy[0]);
        assertEquals("Deployment completed successfully",
                agent.json("/v1/deployment/" + second).get("StatusDescription").asText());
        AgentProcess.await("three allocations of version 1 run and the old ones stopped", WAIT,
                () -> live("canary").size() == 3 && running(live("canary"), 1) == 3);
        JsonNode job = agent.json("/v1/job/canary");
        assertEquals(1, job.get("Version").asInt());
        assertTrue(job.get("Stable").asBoolean(), "version 1 is stable");
    }

    @Test
    void aFailingVersionAutoRevertsOnClientReportedHealth() throws Exception {
        String update = "max_parallel = 1\n min_healthy_time = \"1s\"\n healthy_deadline = \"30s\"\n"
                + " auto_revert = true";
        Result run0 = cli("revert-run0", WAIT, "job", "run", "-detach", jobFile("revert", 2, update, 0, SLEEP)
                .toString());
        assertEquals(0, run0.code(), run0.output());
        AgentProcess.await("version 0 is successful and stable", ROLL, () -> latest("revert").has("ID")
                && status(latest("revert").get("ID").asText()).equals("successful")
                && agent.json("/v1/job/revert").get("Stable").asBoolean());

        Result run1 = cli("revert-run1", WAIT, "job", "run", "-detach", jobFile("revert", 2, update, 1, "exit 1")
                .toString());
        assertEquals(0, run1.code(), run1.output());
        // The failing version's deployment, by its version: the rollback's may already be the latest one.
        AgentProcess.await("a deployment of version 1", WAIT, () -> ofVersion("revert", 1) != null);
        String second = ofVersion("revert", 1).get("ID").asText();
        AgentProcess.await("the deployment of the failing version fails", ROLL, () -> status(second).equals("failed"));
        assertEquals("Failed due to unhealthy allocations - rolling back to job version 0",
                agent.json("/v1/deployment/" + second).get("StatusDescription").asText());
        JsonNode job = agent.json("/v1/job/revert");
        assertEquals(2, job.get("Version").asInt(), "the stable spec comes back as a new version");
        assertEquals("0", job.get("TaskGroups").get(0).get("Tasks").get(0).get("Env").get("VERSION").asText());
        AgentProcess.await("the previous spec runs again, two allocations of version 2", ROLL, () -> {
            List<JsonNode> now = live("revert");
            return now.size() == 2 && running(now, 2) == 2;
        });
        AgentProcess.await("the rollback's deployment succeeds", ROLL, () -> {
            String id = latest("revert").path("ID").asText();
            return !id.equals(second) && status(id).equals("successful");
        });
    }

    @Test
    void jobRunMonitorsTheDeploymentToItsEnd() throws Exception {
        String update = "max_parallel = 1\n min_healthy_time = \"1s\"\n healthy_deadline = \"30s\"";
        Result ok = cli("monitor-ok", ROLL, "job", "run", jobFile("monitored", 2, update, 0, SLEEP).toString());
        assertEquals(0, ok.code(), ok.output());
        String out = ok.output();
        assertTrue(out.contains("==> ") && out.contains("Monitoring deployment"), out);
        assertTrue(out.lines().anyMatch(l -> l.matches("\\s+Status\\s+= successful")), out);
        assertTrue(out.lines().anyMatch(l -> l.matches("\\s+Description\\s+= Deployment completed successfully")),
                out);
        assertTrue(out.lines().anyMatch(l -> l.matches("\\s+web\\s+2\\s+2\\s+2\\s+0\\s+.*")),
                "the group row: Desired 2, Placed 2, Healthy 2, Unhealthy 0\n" + out);
        assertTrue(!out.contains("\u001b["), "plain output when not a terminal");

        // No auto_revert: the deployment fails and job run says so with exit code 1.
        Result bad = cli("monitor-bad", ROLL, "job", "run", jobFile("monitored", 2, update, 1, "exit 1").toString());
        assertEquals(1, bad.code(), bad.output());
        assertTrue(bad.output().lines().anyMatch(l -> l.matches("\\s+Status\\s+= failed")), bad.output());
        assertTrue(bad.output().contains("Failed due to unhealthy allocations"), bad.output());
    }

    /**
     * A service job with no {@code update} block gets Nomad's default strategy when it is registered, so it is placed
     * under a deployment that the client's health reports (10 s of running, no checks) complete; {@code job run}
     * follows it to the end, as {@code nomad job run} does.
     */
    @Test
    void aServiceWithoutAnUpdateBlockGetsNomadsDefaultStrategyAndADeployment() throws Exception {
        Result run = cli("plain-run", ROLL, "job", "run", jobFile("plain", 1, null, 0, SLEEP).toString());
        assertEquals(0, run.code(), run.output());
        assertTrue(run.output().contains("Monitoring deployment"), run.output());
        assertTrue(run.output().lines().anyMatch(l -> l.matches("\\s+Description\\s+= Deployment completed "
                + "successfully")), run.output());

        JsonNode deployment = latest("plain");
        assertEquals("successful", deployment.path("Status").asText(), deployment.toString());
        assertEquals(1, deployment.path("TaskGroups").path("web").path("HealthyAllocs").asInt(), deployment.toString());
        JsonNode job = agent.json("/v1/job/plain");
        // As Nomad stores it: the job level keeps stagger and max_parallel, the group has the whole strategy.
        JsonNode jobUpdate = job.path("Update");
        assertEquals(30_000_000_000L, jobUpdate.path("Stagger").asLong(), job.toString());
        assertEquals(1, jobUpdate.path("MaxParallel").asInt(), job.toString());
        assertEquals("", jobUpdate.path("HealthCheck").asText("missing"), job.toString());
        assertEquals(0, jobUpdate.path("HealthyDeadline").asLong(-1), job.toString());
        JsonNode groupUpdate = job.path("TaskGroups").get(0).path("Update");
        assertEquals(AgentProcess.JSON.readTree("""
                {"Stagger": 30000000000, "MaxParallel": 1, "HealthCheck": "checks", "MinHealthyTime": 10000000000,
                 "HealthyDeadline": 300000000000, "ProgressDeadline": 600000000000, "Canary": 0,
                 "AutoRevert": false, "AutoPromote": false}"""), groupUpdate, job.toString());
        assertTrue(job.path("Stable").asBoolean(), "the successful deployment made version 0 stable");
    }

    @Test
    void versionsCarryDiffsAndTagsAndATagNamesTheVersionToRevertTo() throws Exception {
        String update = "max_parallel = 1\n min_healthy_time = \"1s\"\n healthy_deadline = \"30s\"";
        for (int v = 0; v < 2; v++) {
            Result run = cli("tagged-run" + v, WAIT, "job", "run", "-detach", jobFile("tagged", 1, update, v, SLEEP)
                    .toString());
            assertEquals(0, run.code(), run.output());
        }
        AgentProcess.await("two versions", WAIT, () -> agent.json("/v1/job/tagged/versions").path("Versions")
                .size() == 2);

        Result apply = cli("tag-apply", WAIT, "job", "tag", "apply", "-name", "golden", "-description", "known good",
                "-version", "0", "tagged");
        assertEquals(0, apply.code(), apply.output());
        assertTrue(apply.output().contains("Job version 0 tagged with name \"golden\""), apply.output());
        Result again = cli("tag-apply-again", WAIT, "job", "tag", "apply", "-name", "golden", "-version", "1",
                "tagged");
        assertEquals(1, again.code(), "a tag name is unique per job: " + again.output());
        assertTrue(again.output().contains("already exists on a different version"), again.output());

        JsonNode versions = agent.json("/v1/job/tagged/versions?diffs=true");
        assertEquals(2, versions.path("Versions").size());
        assertEquals(1, versions.path("Diffs").size(), "one diff per pair of versions: " + versions.path("Diffs"));
        JsonNode diff = versions.path("Diffs").get(0);
        assertEquals("Edited", diff.path("Type").asText());
        assertTrue(diff.toString().contains("\"VERSION\""), "the env change shows: " + diff);
        assertEquals("golden", versions.path("Versions").get(1).path("VersionTag").path("Name").asText());
        assertEquals("known good", versions.path("Versions").get(1).path("VersionTag").path("Description")
                .asText());
        assertTrue(agent.json("/v1/job/tagged/versions").path("Diffs").size() == 0, "no diffs unless asked");

        Result history = cli("history", WAIT, "job", "history", "-p", "tagged");
        assertEquals(0, history.code(), history.output());
        assertTrue(history.output().lines().anyMatch(l -> l.matches("Tag Name\\s+= golden")), history.output());
        assertTrue(history.output().lines().anyMatch(l -> l.startsWith("Diff")), history.output());
        assertTrue(history.output().contains("VERSION"), history.output());

        Result revert = cli("revert", WAIT, "job", "revert", "-detach", "tagged", "golden");
        assertEquals(0, revert.code(), revert.output());
        AgentProcess.await("version 0's spec is version 2", WAIT,
                () -> agent.json("/v1/job/tagged").path("Version").asInt() == 2);
        JsonNode job = agent.json("/v1/job/tagged");
        assertEquals("0", job.get("TaskGroups").get(0).get("Tasks").get(0).get("Env").get("VERSION").asText());
        assertTrue(job.path("VersionTag").isNull() || job.path("VersionTag").isMissingNode(),
                "the copy is untagged: " + job.path("VersionTag"));

        Result unset = cli("tag-unset", WAIT, "job", "tag", "unset", "-name", "golden", "tagged");
        assertEquals(0, unset.code(), unset.output());
        assertTrue(agent.json("/v1/job/tagged/versions").path("Versions").findValues("VersionTag").stream()
                .allMatch(t -> t.isNull()), "no tag left");
        Result unsetAgain = cli("tag-unset-again", WAIT, "job", "tag", "unset", "-name", "golden", "tagged");
        assertEquals(1, unsetAgain.code(), unsetAgain.output());
    }
}
