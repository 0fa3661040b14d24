package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.hashicorp.nomad.apimodel.DispatchPayloadConfig;
import com.hashicorp.nomad.apimodel.Job;
import com.hashicorp.nomad.apimodel.JobDispatchResponse;
import com.hashicorp.nomad.apimodel.ParameterizedJobConfig;
import com.hashicorp.nomad.apimodel.PeriodicConfig;
import com.hashicorp.nomad.apimodel.Task;
import com.hashicorp.nomad.apimodel.TaskGroup;
import com.hashicorp.nomad.javasdk.NomadApiClient;
import com.hashicorp.nomad.javasdk.NomadApiConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Periodic and parameterized jobs on one dev agent, as real processes: the parent is stored and never placed; a
 * seconds-granularity cron launches children that run; {@code periodic force} launches one now; a dispatch with a
 * payload runs a task that finds the payload in {@code local/} and prints it to its log.
 */
class PeriodicDispatchE2EIT {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static DevAgent dev;
    private static AgentProcess agent;
    private static Path dir;

    @BeforeAll
    static void start() throws Exception {
        dev = DevAgent.start("caravan-periodic-");
        agent = dev.agent();
        dir = dev.dir();
    }

    @AfterAll
    static void stop() throws Exception {
        if (dev != null) {
            dev.close();
        }
    }

    private static JsonNode register(String jobJson) throws Exception {
        var response = agent.putForm("/v1/jobs", "{\"Job\": " + jobJson + "}");
        assertEquals(200, response.statusCode(), response.body());
        return AgentProcess.JSON.readTree(response.body());
    }

    private static String path(String jobId) {
        return "/v1/job/" + URLEncoder.encode(jobId, StandardCharsets.UTF_8);
    }

    private static List<JsonNode> children(String parent) {
        List<JsonNode> out = new ArrayList<>();
        agent.json("/v1/jobs?prefix=" + URLEncoder.encode(parent + "/", StandardCharsets.UTF_8)).forEach(j -> {
            if (parent.equals(j.path("ParentID").asText())) {
                out.add(j);
            }
        });
        return out;
    }

    private static String clientStatus(String jobId) {
        JsonNode allocs = agent.json(path(jobId) + "/allocations");
        return allocs != null && allocs.size() == 1 ? allocs.get(0).get("ClientStatus").asText() : "";
    }

    @Test
    void aSecondsCronLaunchesChildrenThatRunWhileTheParentIsNeverPlaced() throws Exception {
        JsonNode registered = register("""
                {"ID": "tick", "Type": "batch", "Datacenters": ["dc1"],
                 "Periodic": {"Spec": "*/2 * * * * * *", "ProhibitOverlap": false},
                 "TaskGroups": [{"Name": "t", "Tasks": [{"Name": "echo", "Driver": "raw_exec",
                   "Config": {"command": "/bin/sh", "args": ["-c", "echo tick"]}}]}]}
                """);
        assertEquals("", registered.get("EvalID").asText(), "no evaluation for a periodic parent");
        assertEquals("running", agent.json("/v1/job/tick").get("Status").asText());

        AgentProcess.await("two children have run to completion", WAIT, () -> children("tick").stream()
                .filter(c -> clientStatus(c.get("ID").asText()).equals("complete")).count() >= 2);
        assertEquals(0, agent.json("/v1/job/tick/allocations").size(), "the parent itself is never placed");
        assertEquals(0, agent.json("/v1/job/tick/evaluations").size());
        for (JsonNode child : children("tick")) {
            assertTrue(child.get("ID").asText().matches("tick/periodic-\\d+"), child.toString());
            assertEquals(false, child.get("Periodic").asBoolean());
        }
        AgentProcess.await("the parent's summary counts dead children", WAIT, () ->
                agent.json("/v1/job/tick/summary").path("Children").path("Dead").asInt() >= 2);

        // Stopping the parent stops the launches.
        assertEquals(200, agent.delete("/v1/job/tick").statusCode());
        Thread.sleep(1000); // a launch already on its way may still land
        int launched = children("tick").size();
        Thread.sleep(5000);
        assertEquals(launched, children("tick").size(), "no launch after the parent stopped");
    }

    @Test
    void periodicForceLaunchesAChildNow() throws Exception {
        register("""
                {"ID": "yearly", "Type": "batch", "Datacenters": ["dc1"], "Periodic": {"Spec": "@yearly"},
                 "TaskGroups": [{"Name": "t", "Tasks": [{"Name": "echo", "Driver": "raw_exec",
                   "Config": {"command": "/bin/sh", "args": ["-c", "echo forced"]}}]}]}
                """);
        var forced = agent.putForm("/v1/job/yearly/periodic/force", "");
        assertEquals(200, forced.statusCode(), forced.body());
        String evalId = AgentProcess.JSON.readTree(forced.body()).get("EvalID").asText();
        String childId = agent.json("/v1/evaluation/" + evalId).get("JobID").asText();
        assertTrue(childId.matches("yearly/periodic-\\d+"), childId);
        AgentProcess.await("the forced child completes", WAIT, () -> clientStatus(childId).equals("complete"));

        var notPeriodic = agent.putForm("/v1/job/" + URLEncoder.encode(childId, StandardCharsets.UTF_8)
                + "/periodic/force", "");
        assertEquals(400, notPeriodic.statusCode(), notPeriodic.body());
    }

    @Test
    void theOfficialSdkDispatchesReadsThePayloadBackAndForcesALaunch() throws Exception {
        try (NomadApiClient nomad = new NomadApiClient(new NomadApiConfiguration.Builder()
                .setAddress(agent.address()).build())) {
            Task task = new Task().setName("cat").setDriver("raw_exec")
                    .setConfig(Map.of("command", "/bin/sh", "args", List.of("-c", "cat ${NOMAD_TASK_DIR}/in")))
                    .setDispatchPayload(new DispatchPayloadConfig().setFile("in"));
            TaskGroup group = new TaskGroup().setName("g").setCount(1).setTasks(List.of(task));
            Job job = new Job().setId("sdk-param").setName("sdk-param").setType("batch")
                    .setDatacenters(List.of("dc1")).setTaskGroups(List.of(group))
                    .setParameterizedJob(new ParameterizedJobConfig().setPayload("optional")
                            .setMetaOptional(List.of("k")));
            nomad.getJobsApi().register(job);
            byte[] payload = "sdk payload".getBytes(StandardCharsets.UTF_8);
            JobDispatchResponse dispatched = nomad.getJobsApi().dispatch("sdk-param", Map.of("k", "v"), payload)
                    .getValue();
            String childId = dispatched.getDispatchedJobId();
            assertTrue(childId.startsWith("sdk-param/dispatch-"), childId);
            assertTrue(dispatched.getEvalId().length() > 0);
            Job child = nomad.getJobsApi().info(childId).getValue();
            assertEquals("sdk-param", child.getParentId());
            assertArrayEquals(payload, child.getPayload(), "read back as dispatched");
            assertEquals("v", child.getMeta().get("k"));

            Job periodic = new Job().setId("sdk-periodic").setName("sdk-periodic").setType("batch")
                    .setDatacenters(List.of("dc1")).setTaskGroups(List.of(group.setTasks(List.of(
                            new Task().setName("t").setDriver("raw_exec").setConfig(Map.of("command", "/bin/true"))))))
                    .setPeriodic(new PeriodicConfig().setSpec("0 0 1 1 *"));
            nomad.getJobsApi().register(periodic);
            String evalId = nomad.getJobsApi().periodicForce("sdk-periodic").getValue();
            assertTrue(agent.json("/v1/evaluation/" + evalId).get("JobID").asText()
                    .startsWith("sdk-periodic/periodic-"));
        }
    }

    /** {@code caravan <words> -address=<agent> <flags and arguments>}: its output once it exits 0. */
    private static String cli(String... args) throws Exception {
        List<String> command = new ArrayList<>();
        int words = 0;
        while (words < args.length && !args[words].startsWith("-")) {
            command.add(args[words++]);
        }
        command.add("-address=" + agent.address());
        command.addAll(List.of(args).subList(words, args.length));
        Path out = Files.createTempFile(dir, "cli-", ".out");
        Process p = AgentProcess.run(out, command.toArray(String[]::new));
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the CLI finishes");
        String text = Files.readString(out);
        assertEquals(0, p.exitValue(), text);
        return text;
    }

    @Test
    void theTutorialsWorkFromTheCommandLine() throws Exception {
        Path periodic = dir.resolve("tick.nomad.hcl");
        Files.writeString(periodic, """
                job "cli-tick" {
                  type        = "batch"
                  datacenters = ["dc1"]
                  periodic {
                    crons            = ["*/3 * * * * * *"]
                    time_zone        = "Europe/Paris"
                    prohibit_overlap = true
                  }
                  group "g" {
                    task "t" {
                      driver = "raw_exec"
                      config {
                        command = "/bin/sh"
                        args    = ["-c", "echo tick"]
                      }
                    }
                  }
                }
                """);
        String run = cli("job", "run", periodic.toString());
        assertTrue(run.contains("Job registration successful\nApproximate next launch time: "), run);
        AgentProcess.await("a child has run", WAIT, () -> children("cli-tick").stream()
                .anyMatch(c -> clientStatus(c.get("ID").asText()).equals("complete")));
        String status = cli("job", "status", "cli-tick");
        assertTrue(status.contains("Next Periodic Launch = "), status);
        assertTrue(status.contains("Children Job Summary"), status);
        assertTrue(status.matches("(?s).*Previously Launched Jobs\nID +Status\ncli-tick/periodic-\\d+ .*"), status);
        assertEquals(200, agent.delete("/v1/job/cli-tick").statusCode());

        Path parameterized = dir.resolve("render.nomad.hcl");
        Files.writeString(parameterized, """
                job "cli-render" {
                  type        = "batch"
                  datacenters = ["dc1"]
                  parameterized {
                    payload       = "required"
                    meta_required = ["frame"]
                  }
                  group "g" {
                    task "cat" {
                      driver = "raw_exec"
                      dispatch_payload {
                        file = "input.txt"
                      }
                      config {
                        command = "/bin/sh"
                        args    = ["-c", "cat ${NOMAD_TASK_DIR}/input.txt"]
                      }
                    }
                  }
                }
                """);
        assertTrue(cli("job", "run", parameterized.toString()).startsWith("Job registration successful\n"));
        Path input = dir.resolve("input.txt");
        Files.writeString(input, "from the command line\n");
        String dispatched = cli("job", "dispatch", "-meta", "frame=3", "cli-render", input.toString());
        assertTrue(dispatched.startsWith("Dispatched Job ID = cli-render/dispatch-"), dispatched);
        assertTrue(dispatched.contains("finished with status \"complete\""), dispatched);
        String childId = children("cli-render").get(0).get("ID").asText();
        AgentProcess.await("the dispatched job completes", WAIT, () -> clientStatus(childId).equals("complete"));
        String allocId = agent.json(path(childId) + "/allocations").get(0).get("ID").asText();
        assertEquals("from the command line\n", Files.readString(
                dir.resolve("data/alloc").resolve(allocId).resolve("alloc/logs/cat.stdout.0")));
        String renderStatus = cli("job", "status", "cli-render");
        assertTrue(renderStatus.contains("Parameterized Job\nPayload           = required\n"
                + "Required Metadata = frame"), renderStatus);
        assertTrue(renderStatus.contains("Dispatched Jobs\nID"), renderStatus);
        assertTrue(renderStatus.contains(childId), renderStatus);
    }

    @Test
    void aDispatchedPayloadIsInTheTasksLocalDirectory() throws Exception {
        JsonNode registered = register("""
                {"ID": "render", "Type": "batch", "Datacenters": ["dc1"],
                 "ParameterizedJob": {"Payload": "required", "MetaRequired": ["frame"]},
                 "TaskGroups": [{"Name": "r", "Tasks": [{"Name": "cat", "Driver": "raw_exec",
                   "DispatchPayload": {"File": "input.txt"},
                   "Config": {"command": "/bin/sh",
                              "args": ["-c", "cat ${NOMAD_TASK_DIR}/input.txt; echo \\" frame=${NOMAD_META_frame}\\""]}}]}]}
                """);
        assertEquals("", registered.get("EvalID").asText());

        var missing = agent.putForm("/v1/job/render/dispatch", "{\"Meta\": {\"frame\": \"7\"}}");
        assertEquals(400, missing.statusCode(), missing.body());
        assertTrue(missing.body().contains("Payload is not provided but required"), missing.body());

        String payload = Base64.getEncoder().encodeToString("the payload".getBytes(StandardCharsets.UTF_8));
        var dispatched = agent.putForm("/v1/job/render/dispatch",
                "{\"Payload\": \"" + payload + "\", \"Meta\": {\"frame\": \"7\"}}");
        assertEquals(200, dispatched.statusCode(), dispatched.body());
        String childId = AgentProcess.JSON.readTree(dispatched.body()).get("DispatchedJobID").asText();
        assertTrue(childId.matches("render/dispatch-\\d+-[0-9a-f]{8}"), childId);

        AgentProcess.await("the dispatched job completes", WAIT, () -> clientStatus(childId).equals("complete"));
        String allocId = agent.json(path(childId) + "/allocations").get(0).get("ID").asText();
        assertEquals("the payload frame=7\n", Files.readString(
                dir.resolve("data/alloc").resolve(allocId).resolve("alloc/logs/cat.stdout.0")));
        assertEquals(1, children("render").size());
        assertEquals(0, agent.json("/v1/job/render/allocations").size());
    }
}
