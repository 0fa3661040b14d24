package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.api.json.NomadJson;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code job dispatch}, {@code job periodic force}, and {@code job status} of periodic and parameterized parents. */
class JobDispatchPeriodicCommandsTest extends FakeAgentTest {
    private Map<String, String> env;

    @BeforeEach
    void environment() {
        env = Map.of("CARAVAN_ADDR", agent.address(), "TZ", "UTC");
    }

    @Test
    void dispatchSendsThePayloadFileAndMetaAndPrintsTheChild(@TempDir Path tmp) throws Exception {
        Path input = tmp.resolve("input.txt");
        Files.writeString(input, "frame 42\n");
        agent.json("/v1/job/render/dispatch", """
                {"DispatchedJobID":"render/dispatch-1700000000-0a1b2c3d","EvalID":"31199841-aaaa-bbbb",
                 "EvalCreateIndex":12,"JobCreateIndex":12,"Index":12}""");
        Cli.Result r = Cli.run(env, "job", "dispatch", "-detach", "-meta", "frame=42", "-meta", "quality=hi",
                "-id-prefix-template", "nightly", "render", input.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals("""
                Dispatched Job ID = render/dispatch-1700000000-0a1b2c3d
                Evaluation ID     = 31199841
                """, r.out());
        FakeAgent.Request sent = agent.last("/v1/job/render/dispatch");
        assertEquals("PUT", sent.method());
        JsonNode body = NomadJson.mapper().readTree(sent.body());
        assertEquals("frame 42\n", new String(Base64.getDecoder().decode(body.path("Payload").asText()),
                StandardCharsets.UTF_8));
        assertEquals(Map.of("frame", "42", "quality", "hi"), NomadJson.mapper().convertValue(body.path("Meta"),
                Map.class));
        assertEquals("nightly", body.path("IdPrefixTemplate").asText());
    }

    @Test
    void dispatchReadsStandardInputForADashAndReportsTheServersRefusal() {
        agent.reply("/v1/job/render/dispatch", 400, "Payload: Payload provided but forbidden by parameterized job");
        Cli.Result r = Cli.withInput("piped", env, "job", "dispatch", "render", "-");
        assertEquals(1, r.code());
        assertEquals("Failed to dispatch job: Unexpected response code: 400 (Payload: Payload provided but "
                + "forbidden by parameterized job)\n", r.err());
        assertEquals("piped", new String(Base64.getDecoder().decode(NomadJson.mapper().valueToTree(
                readTree(agent.last("/v1/job/render/dispatch").body())).path("Payload").asText()),
                StandardCharsets.UTF_8));
    }

    private static JsonNode readTree(String json) {
        try {
            return NomadJson.mapper().readTree(json);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void dispatchWithABadMetaFlagIsAUsageError() {
        Cli.Result r = Cli.run(env, "job", "dispatch", "-meta", "novalue", "render");
        assertEquals(1, r.code());
        assertTrue(r.err().startsWith("Invalid metadata \"novalue\": expected KEY=VALUE"), r.err());
    }

    @Test
    void runningAPeriodicJobPrintsTheApproximateNextLaunch(@TempDir Path tmp) throws Exception {
        Path file = tmp.resolve("report.json");
        Files.writeString(file, "{\"Job\": {\"ID\": \"report\", \"Type\": \"batch\", "
                + "\"Periodic\": {\"Spec\": \"0 0 1 1 *\", \"TimeZone\": \"UTC\"}}}");
        agent.json("/v1/jobs", "{\"EvalID\":\"\",\"EvalCreateIndex\":0,\"JobModifyIndex\":7}");
        Cli.Result r = Cli.run(env, "job", "run", file.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().matches("Job registration successful\nApproximate next launch time: "
                + "\\d{4}-01-01T00:00:00Z \\(\\d+h\\d+m\\d+s from now\\)\n"), r.out());
    }

    @Test
    void periodicForceDetachedPrintsTheEvaluation() {
        agent.json("/v1/jobs", "[{\"ID\":\"report\"}]")
                .json("/v1/job/report/periodic/force", "{\"EvalID\":\"d8c7ef09-2ebd\",\"EvalCreateIndex\":9,"
                        + "\"Index\":9}");
        Cli.Result r = Cli.run(env, "job", "periodic", "force", "-detach", "report");
        assertEquals(0, r.code(), r.err());
        assertEquals("Force periodic successful\nEvaluation ID: d8c7ef09-2ebd\n", r.out());
        assertEquals("PUT", agent.last("/v1/job/report/periodic/force").method());
    }

    @Test
    void statusOfAPeriodicParentShowsTheNextLaunchAndItsChildren() {
        agent.json("/v1/jobs", """
                        [{"ID":"report","ParentID":""},
                         {"ID":"report/periodic-1767225600","ParentID":"report","Status":"dead"},
                         {"ID":"report/periodic-1767225900","ParentID":"report","Status":"running"}]""")
                .json("/v1/job/report", """
                        {"ID":"report","Name":"report","Type":"batch","Priority":50,"Datacenters":["*"],
                         "Namespace":"default","NodePool":"default","Status":"running","Stop":false,
                         "SubmitTime":1704207845000000000,"ParameterizedJob":null,
                         "Periodic":{"Enabled":true,"Spec":"*/5 * * * *","SpecType":"cron","TimeZone":"UTC"}}""")
                .json("/v1/job/report/summary", """
                        {"JobID":"report","Summary":{"run":{}},"Children":{"Pending":0,"Running":1,"Dead":1}}""");
        Cli.Result r = Cli.run(env, "job", "status", "report");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().matches("(?s).*Parameterized        = false\nNext Periodic Launch = "
                + "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d[05]:00Z \\((\\d+m)?\\d+s from now\\)\n.*"), r.out());
        assertTrue(r.out().endsWith("""

                Children Job Summary
                Pending  Running  Dead
                0        1        1

                Previously Launched Jobs
                ID                          Status
                report/periodic-1767225600  dead
                report/periodic-1767225900  running
                """), r.out());
        assertEquals("prefix=report/periodic-", java.net.URLDecoder.decode(agent.last("/v1/jobs").query(),
                StandardCharsets.UTF_8));
    }

    @Test
    void statusOfAParameterizedParentShowsItsRulesAndDispatchedJobs() {
        agent.json("/v1/jobs", """
                        [{"ID":"render","ParentID":""},
                         {"ID":"render/dispatch-1700000000-0a1b2c3d","ParentID":"render","Status":"pending"}]""")
                .json("/v1/job/render", """
                        {"ID":"render","Name":"render","Type":"batch","Priority":50,"Datacenters":["*"],
                         "Namespace":"default","NodePool":"default","Status":"running","Stop":false,
                         "SubmitTime":1704207845000000000,"Periodic":null,
                         "ParameterizedJob":{"Payload":"required","MetaRequired":["frame"],
                                             "MetaOptional":["quality","size"]}}""")
                .json("/v1/job/render/summary", """
                        {"JobID":"render","Summary":{},"Children":{"Pending":1,"Running":0,"Dead":0}}""");
        Cli.Result r = Cli.run(env, "job", "status", "render");
        assertEquals(0, r.code(), r.err());
        assertEquals("""
                ID            = render
                Name          = render
                Submit Date   = 2024-01-02T15:04:05Z
                Type          = batch
                Priority      = 50
                Datacenters   = *
                Namespace     = default
                Node Pool     = default
                Status        = running
                Periodic      = false
                Parameterized = true

                Parameterized Job
                Payload           = required
                Required Metadata = frame
                Optional Metadata = quality, size

                Parameterized Job Summary
                Pending  Running  Dead
                1        0        0

                Dispatched Jobs
                ID                                   Status
                render/dispatch-1700000000-0a1b2c3d  pending
                """, r.out());
    }
}
