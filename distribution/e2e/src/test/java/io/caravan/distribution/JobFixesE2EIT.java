package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
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
 * The job-lifecycle fixes as a new user meets them on {@code caravan agent -dev}: {@code job init}'s example runs as
 * written; jobs live only in namespaces that exist ({@code namespace apply|list|delete}, {@code -namespace}); a job
 * blocked on a constraint and then stopped is dead.
 */
class JobFixesE2EIT {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static DevAgent dev;
    private static AgentProcess agent;
    private static Path dir;

    @BeforeAll
    static void start() throws Exception {
        dev = DevAgent.start("caravan-jobfixes-");
        agent = dev.agent();
        dir = dev.dir();
    }

    @AfterAll
    static void stop() throws Exception {
        if (dev != null) {
            dev.close();
        }
    }

    /** A CLI command in {@code dir}, {@code -address} of the agent after its words; its exit code and output. */
    private static Result cli(String... args) throws Exception {
        List<String> words = new ArrayList<>();
        int i = 0;
        while (i < args.length && !args[i].startsWith("-")) {
            words.add(args[i++]);
        }
        if (!words.get(0).equals("job") || !words.get(1).equals("init")) {
            words.add("-address=" + agent.address());
        }
        words.addAll(List.of(args).subList(i, args.length));
        Path out = Files.createTempFile(dir, "cli-", ".out");
        Process p = AgentProcess.runIn(dir, out, words.toArray(String[]::new));
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the CLI finishes");
        return new Result(p.exitValue(), Files.readString(out));
    }

    record Result(int code, String output) {}

    private static String jobStatus(String ns, String id) {
        return agent.json("/v1/job/" + id + "?namespace=" + ns).path("Status").asText();
    }

    private static boolean running(String ns, String id) {
        JsonNode allocs = agent.json("/v1/job/" + id + "/allocations?namespace=" + ns);
        return allocs.isArray() && allocs.size() > 0 && allocs.get(0).path("ClientStatus").asText().equals("running");
    }

    @Test
    void theInitExampleValidatesRegistersAndRunsAsWritten() throws Exception {
        Result init = cli("job", "init");
        assertEquals(0, init.code(), init.output());
        assertTrue(Files.exists(dir.resolve("example.nomad.hcl")));
        Result validate = cli("job", "validate", "example.nomad.hcl");
        assertEquals(0, validate.code(), validate.output());
        assertTrue(validate.output().contains("Job validation successful"), validate.output());
        Result run = cli("job", "run", "-detach", "example.nomad.hcl");
        assertEquals(0, run.code(), run.output());
        AgentProcess.await("the example's allocation runs", WAIT, () -> running("default", "example"));
    }

    @Test
    void jobsLiveOnlyInNamespacesThatExist() throws Exception {
        HttpResponse<String> refused = agent.call("PUT", "/v1/jobs?namespace=qa", null, """
                {"Job": {"ID": "web", "TaskGroups": [{"Name": "g", "Tasks": [{"Name": "t", "Driver": "raw_exec",
                  "Config": {"command": "/bin/sleep", "args": ["600"]}}]}]}}""");
        assertEquals(400, refused.statusCode(), refused.body());
        assertEquals("namespace \"qa\" does not exist", refused.body().trim());

        Result apply = cli("namespace", "apply", "-description", "quality", "qa");
        assertEquals(0, apply.code(), apply.output());
        Result list = cli("namespace", "list");
        assertTrue(list.output().contains("qa") && list.output().contains("quality"), list.output());

        Files.writeString(dir.resolve("sleep.nomad.hcl"), """
                job "sleep" {
                  group "g" {
                    task "t" {
                      driver = "raw_exec"
                      config {
                        command = "/bin/sleep"
                        args    = ["600"]
                      }
                    }
                  }
                }
                """);
        Result run = cli("job", "run", "-detach", "-namespace", "qa", "sleep.nomad.hcl");
        assertEquals(0, run.code(), run.output());
        AgentProcess.await("the job runs in qa", WAIT, () -> running("qa", "sleep"));

        Result busy = cli("namespace", "delete", "qa");
        assertEquals(1, busy.code(), busy.output());
        assertTrue(busy.output().contains("namespace \"qa\" has non-terminal jobs in regions: [global]"),
                busy.output());
        Result defaultDelete = cli("namespace", "delete", "default");
        assertTrue(defaultDelete.output().contains("can not delete default namespace"), defaultDelete.output());

        assertEquals(200, agent.call("DELETE", "/v1/job/sleep?namespace=qa", null, null).statusCode());
        AgentProcess.await("the stopped job is dead", WAIT, () -> jobStatus("qa", "sleep").equals("dead"));
        Result deleted = cli("namespace", "delete", "qa");
        assertEquals(0, deleted.code(), deleted.output());
    }

    @Test
    void aJobBlockedOnAConstraintThenStoppedIsDead() throws Exception {
        HttpResponse<String> registered = agent.call("PUT", "/v1/jobs", null, """
                {"Job": {"ID": "nowhere", "TaskGroups": [{"Name": "g",
                  "Constraints": [{"LTarget": "${attr.kernel.name}", "RTarget": "plan9", "Operand": "="}],
                  "Tasks": [{"Name": "t", "Driver": "raw_exec", "Config": {"command": "/bin/true"}}]}]}}""");
        assertEquals(200, registered.statusCode(), registered.body());
        AgentProcess.await("a blocked evaluation", WAIT, () -> agent.json("/v1/job/nowhere/evaluations")
                .findValues("Status").stream().anyMatch(s -> s.asText().equals("blocked")));
        // Nomad's default update strategy gave the service its deployment, nothing placed yet: running while it is
        // active, as in Nomad (without a deployment it would be pending).
        // The plan with the deployment and the blocked evaluation are two writes: wait for both.
        AgentProcess.await("its deployment", WAIT, () -> agent.json("/v1/job/nowhere/deployment").path("Status")
                .asText().equals("running"));
        JsonNode deployment = agent.json("/v1/job/nowhere/deployment");
        assertEquals("running", jobStatus("default", "nowhere"));
        assertEquals(200, agent.call("DELETE", "/v1/job/nowhere", null, null).statusCode());
        AgentProcess.await("the stopped job is dead", WAIT, () -> jobStatus("default", "nowhere").equals("dead"));
        assertEquals("cancelled", agent.json("/v1/deployment/" + deployment.path("ID").asText()).path("Status")
                .asText(), "the stop cancels the deployment");
        AgentProcess.await("its blocked evaluation is cancelled", WAIT, () -> agent.json(
                "/v1/job/nowhere/evaluations").findValues("Status").stream().noneMatch(s -> s.asText()
                .equals("blocked")));
    }
}
