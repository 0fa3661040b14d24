package io.caravan.cli;

import static io.caravan.cli.DeploymentCommandsTest.DEPLOYMENT;
import static io.caravan.cli.DeploymentCommandsTest.DEP_ID;
import static io.caravan.cli.DeploymentCommandsTest.DETAILS;
import static io.caravan.cli.DeploymentCommandsTest.EVAL;
import static io.caravan.cli.EvalMonitorTest.untimed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import io.caravan.api.json.NomadJson;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code job promote|revert|deployments|allocs|history -p|status|run} around deployments, against a fake agent. */
class JobDeploymentCommandsTest extends FakeAgentTest {
    private static final String SUCCESSFUL = DEPLOYMENT.replace("\"Status\":\"running\"", "\"Status\":\"successful\"")
            .replace("Deployment is running but requires manual promotion", "Deployment completed successfully");
    private static final String EVAL_IN_DEPLOYMENT = """
            {"ID":"%s","JobID":"web","Status":"complete","CreateIndex":30,"DeploymentID":"%s",
             "FailedTGAllocs":null}""".formatted(EVAL, DEP_ID);

    private Map<String, String> env;

    @BeforeEach
    void environment() {
        env = Map.of("CARAVAN_ADDR", agent.address(), "TZ", "UTC");
        agent.json("/v1/jobs", "[{\"ID\":\"web\"}]");
    }

    @Test
    void jobPromotePromotesTheLatestDeployment() throws Exception {
        agent.json("/v1/job/web/deployment", DEPLOYMENT)
                .json("/v1/deployment/promote/" + DEP_ID, "{\"EvalID\":\"" + EVAL + "\"}");
        Cli.Result r = Cli.run(env, "job", "promote", "-group", "web", "-detach", "we");
        assertEquals(0, r.code(), r.err());
        assertEquals("Evaluation ID: " + EVAL + "\n", r.out());
        assertEquals(NomadJson.mapper().readTree("""
                {"DeploymentID":"%s","All":false,"Groups":["web"]}""".formatted(DEP_ID)),
                NomadJson.mapper().readTree(agent.last("/v1/deployment/promote/" + DEP_ID).body()));
    }

    @Test
    void jobPromoteWithoutADeploymentSaysSo() {
        agent.json("/v1/job/web/deployment", "null");
        Cli.Result r = Cli.run(env, "job", "promote", "web");
        assertEquals(1, r.code());
        assertEquals("Job \"web\" has no deployment to promote\n", r.err());

        agent.json("/v1/job/web/deployment", DEPLOYMENT).reply("/v1/deployment/promote/" + DEP_ID, 500, "boom");
        Cli.Result refused = Cli.run(env, "job", "promote", "web");
        assertEquals(1, refused.code());
        assertEquals("Error promoting deployment \"" + DEP_ID + "\" for job \"web\": Unexpected response code: 500 "
                + "(boom)\n", refused.err());
    }

    @Test
    void jobRevertSendsTheVersionOrTheTaggedOne() throws Exception {
        agent.json("/v1/job/web/revert", "{\"EvalID\":\"" + EVAL + "\",\"EvalCreateIndex\":40}");
        Cli.Result r = Cli.run(env, "job", "revert", "-detach", "web", "1");
        assertEquals(0, r.code(), r.err());
        assertEquals("Evaluation ID: " + EVAL + "\n", r.out());
        assertEquals(NomadJson.mapper().readTree("{\"JobID\":\"web\",\"JobVersion\":1}"),
                NomadJson.mapper().readTree(agent.last("/v1/job/web/revert").body()));

        agent.json("/v1/job/web/versions", """
                {"Versions":[{"ID":"web","Version":3},{"ID":"web","Version":2,"VersionTag":{"Name":"golden"}}],
                 "Diffs":[]}""");
        Cli.Result tagged = Cli.run(env, "job", "revert", "-detach", "web", "golden");
        assertEquals(0, tagged.code(), tagged.err());
        assertEquals(2, NomadJson.mapper().readTree(agent.last("/v1/job/web/revert").body()).path("JobVersion")
                .asLong());

        Cli.Result unknown = Cli.run(env, "job", "revert", "web", "silver");
        assertEquals(1, unknown.code());
        assertEquals("Error retrieving job versions: version tag silver not found for job web\n", unknown.err());

        Cli.Result missing = Cli.run(env, "job", "revert", "web");
        assertEquals(1, missing.code());
        assertTrue(missing.err().startsWith("Missing required parameter: 'VERSION'"), missing.err());
    }

    @Test
    void jobRevertFollowsTheEvaluationAndItsDeployment() {
        agent.json("/v1/job/web/revert", "{\"EvalID\":\"" + EVAL + "\"}")
                .json("/v1/evaluation/" + EVAL, EVAL_IN_DEPLOYMENT)
                .json("/v1/evaluation/" + EVAL + "/allocations", "[]")
                .json("/v1/deployment/" + DEP_ID, SUCCESSFUL);
        Cli.Result r = Cli.run(env, "job", "revert", "web", "1");
        assertEquals(0, r.code(), r.err());
        assertTrue(untimed(r.out()).contains("==> <t>: Monitoring deployment \"d8c7ef09\"\n"), r.out());
    }

    @Test
    void jobDeploymentsListsThemOrShowsTheLatest() {
        agent.json("/v1/job/web/deployments", "[" + DEPLOYMENT + "]").json("/v1/job/web/deployment", DEPLOYMENT);
        Cli.Result list = Cli.run(env, "job", "deployments", "web");
        assertEquals(0, list.code(), list.err());
        assertEquals("""
                ID        Job ID  Job Version  Status   Description
                d8c7ef09  web     2            running  Deployment is running but requires manual promotion
                """, list.out());

        Cli.Result all = Cli.run(env, "job", "deployments", "-all", "web");
        assertEquals(0, all.code(), all.err());
        assertEquals("all=true", agent.last("/v1/job/web/deployments").query());

        Cli.Result latest = Cli.run(env, "job", "deployments", "-latest", "web");
        assertEquals(0, latest.code(), latest.err());
        assertEquals(DETAILS, latest.out());

        agent.json("/v1/job/web/deployment", "null").json("/v1/job/web/deployments", "[]");
        assertEquals("No deployment found\n", Cli.run(env, "job", "deployments", "-latest", "web").out());
        assertEquals("No deployments found\n", Cli.run(env, "job", "deployments", "web").out());
    }

    @Test
    void jobAllocsShowsTheAllocationTable() {
        agent.json("/v1/job/web/allocations", """
                [{"ID":"8ba85cef-1111-2222-3333-444444444444","NodeID":"171a583b-aaaa-bbbb-cccc-dddddddddddd",
                  "TaskGroup":"web","JobVersion":2,"DesiredStatus":"run","ClientStatus":"running",
                  "CreateTime":0,"ModifyTime":0}]""");
        Cli.Result r = Cli.run(env, "job", "allocs", "web");
        assertEquals(0, r.code(), r.err());
        assertEquals("""
                ID        Node ID   Task Group  Version  Desired  Status   Created  Modified
                8ba85cef  171a583b  web         2        run      running  <none>   <none>
                """, r.out());
        Cli.Result all = Cli.run(env, "job", "allocs", "-all", "web");
        assertEquals(0, all.code(), all.err());
        assertEquals("all=true", agent.last("/v1/job/web/allocations").query());

        agent.json("/v1/job/web/allocations", "[]");
        assertEquals("No allocations placed\n", Cli.run(env, "job", "allocs", "web").out());
    }

    @Test
    void jobHistoryWithPShowsEachVersionsDiff() {
        agent.json("/v1/job/web/versions?diffs=true", """
                {"Versions":[{"ID":"web","Version":1,"Stable":false,"SubmitTime":1704207845000000000},
                             {"ID":"web","Version":0,"Stable":true,"SubmitTime":1704207800000000000}],
                 "Diffs":[{"Type":"Edited","ID":"web","TaskGroups":[{"Type":"Edited","Name":"web",
                   "Fields":[{"Type":"Edited","Name":"Count","Old":"1","New":"3"}]}]}]}""");
        Cli.Result r = Cli.run(env, "job", "history", "-p", "web");
        assertEquals(0, r.code(), r.err());
        assertEquals("""
                Version     = 1
                Stable      = false
                Submit Date = 2024-01-02T15:04:05Z
                Diff        =\s
                +/- Job: "web"
                +/- Task Group: "web"
                  +/- Count: "1" => "3"

                Version     = 0
                Stable      = true
                Submit Date = 2024-01-02T15:03:20Z
                """, r.out());

        Cli.Result one = Cli.run(env, "job", "history", "-p", "-version", "0", "web");
        assertEquals(0, one.code(), one.err());
        assertTrue(one.out().startsWith("Version     = 0\n"), one.out());

        Cli.Result clash = Cli.run(env, "job", "history", "-p", "-json", "web");
        assertEquals(1, clash.code());
        assertTrue(clash.err().startsWith("-json and -t are exclusive with -p and -full\n"), clash.err());
    }

    @Test
    void jobHistoryWithPFromAServerWithoutDiffsShowsTheVersions() {
        agent.json("/v1/job/web/versions?diffs=true", """
                {"Versions":[{"ID":"web","Version":1,"Stable":false,"SubmitTime":1704207845000000000},
                             {"ID":"web","Version":0,"Stable":true,"SubmitTime":1704207800000000000}],
                 "Diffs":[]}""");
        Cli.Result r = Cli.run(env, "job", "history", "-p", "web");
        assertEquals(0, r.code(), r.err());
        assertEquals("""
                Version     = 1
                Stable      = false
                Submit Date = 2024-01-02T15:04:05Z

                Version     = 0
                Stable      = true
                Submit Date = 2024-01-02T15:03:20Z
                """, r.out());
    }

    @Test
    void jobStatusShowsTheLatestDeploymentBeforeTheAllocations() {
        agent.json("/v1/job/web", """
                        {"ID":"web","Name":"web","Type":"service","Priority":50,"Datacenters":["dc1"],
                         "Namespace":"default","NodePool":"default","Status":"running","Stop":false,
                         "SubmitTime":1704207845000000000}""")
                .json("/v1/job/web/summary", "{\"Summary\":{}}")
                .json("/v1/job/web/evaluations", "[]")
                .json("/v1/job/web/deployment", DEPLOYMENT)
                .json("/v1/job/web/allocations", "[]");
        Cli.Result r = Cli.run(env, "job", "status", "web");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().endsWith("""

                Latest Deployment
                ID          = d8c7ef09
                Status      = running
                Description = Deployment is running but requires manual promotion

                Deployed
                Task Group  Auto Revert  Promoted  Desired  Canaries  Placed  Healthy  Unhealthy  Progress Deadline
                cache       false        N/A       2        0         2       2        0          N/A
                web         true         false     3        1         1       1        0          2026-01-02T15:14:05Z

                Allocations
                No allocations placed
                """), r.out());

        agent.json("/v1/job/web/deployment", "null");
        assertTrue(!Cli.run(env, "job", "status", "web").out().contains("Latest Deployment"));
    }

    @Test
    void jobRunFollowsTheDeploymentUntilItSucceeds(@TempDir Path tmp) throws Exception {
        Path file = tmp.resolve("web.json");
        Files.writeString(file, "{\"Job\": {\"ID\": \"web\"}}");
        agent.json("/v1/jobs", "{\"EvalID\":\"" + EVAL + "\",\"EvalCreateIndex\":30}")
                .json("/v1/evaluation/" + EVAL, EVAL_IN_DEPLOYMENT)
                .json("/v1/evaluation/" + EVAL + "/allocations", "[]")
                .sequence("/v1/deployment/" + DEP_ID, DEPLOYMENT, SUCCESSFUL);
        Cli.Result r = Cli.run(env, "job", "run", file.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals("""
                ==> <t>: Monitoring evaluation "e1e1e1e1"
                    <t>: Evaluation triggered by job "web"
                    <t>: Evaluation within deployment: "d8c7ef09"
                    <t>: Evaluation status changed: "pending" -> "complete"
                ==> <t>: Evaluation "e1e1e1e1" finished with status "complete"
                ==> <t>: Monitoring deployment "d8c7ef09"

                    <t>
                    ID          = d8c7ef09
                    Job ID      = web
                    Job Version = 2
                    Status      = running
                    Description = Deployment is running but requires manual promotion

                    Deployed
                    Task Group  Auto Revert  Promoted  Desired  Canaries  Placed  Healthy  Unhealthy  Progress Deadline
                    cache       false        N/A       2        0         2       2        0          N/A
                    web         true         false     3        1         1       1        0          <t>

                    <t>
                    ID          = d8c7ef09
                    Job ID      = web
                    Job Version = 2
                    Status      = successful
                    Description = Deployment completed successfully

                    Deployed
                    Task Group  Auto Revert  Promoted  Desired  Canaries  Placed  Healthy  Unhealthy  Progress Deadline
                    cache       false        N/A       2        0         2       2        0          N/A
                    web         true         false     3        1         1       1        0          <t>
                """, untimed(r.out()));
    }

    @Test
    void jobRunExitsOneWhenTheDeploymentFailsAndFollowsTheAutoRevert(@TempDir Path tmp) throws Exception {
        Path file = tmp.resolve("web.json");
        Files.writeString(file, "{\"Job\": {\"ID\": \"web\"}}");
        String rollbackId = "0a0a0a0a-1111-2222-3333-444444444444";
        String failed = DEPLOYMENT.replace("\"Status\":\"running\"", "\"Status\":\"failed\"")
                .replace("Deployment is running but requires manual promotion", "Failed due to unhealthy allocations");
        agent.json("/v1/jobs", "{\"EvalID\":\"" + EVAL + "\",\"EvalCreateIndex\":30}")
                .json("/v1/evaluation/" + EVAL, EVAL_IN_DEPLOYMENT)
                .json("/v1/evaluation/" + EVAL + "/allocations", "[]")
                .json("/v1/deployment/" + DEP_ID, failed)
                .json("/v1/job/web/deployment", SUCCESSFUL.replace(DEP_ID, rollbackId))
                .json("/v1/deployment/" + rollbackId, SUCCESSFUL.replace(DEP_ID, rollbackId));
        Cli.Result r = Cli.run(env, "job", "run", file.toString());
        assertEquals(1, r.code(), r.out());
        String out = untimed(r.out());
        assertTrue(out.contains("    Description = Failed due to unhealthy allocations\n"), out);
        assertTrue(out.contains("    ID          = 0a0a0a0a\n"), "the rollback's deployment is followed: " + out);
    }

    @Test
    void jobRunDetachDoesNotFollowTheDeployment(@TempDir Path tmp) throws Exception {
        Path file = tmp.resolve("web.json");
        Files.writeString(file, "{\"Job\": {\"ID\": \"web\"}}");
        agent.json("/v1/jobs", "{\"EvalID\":\"" + EVAL + "\"}");
        Cli.Result r = Cli.run(env, "job", "run", "-detach", file.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(agent.requests().stream().noneMatch(q -> q.path().startsWith("/v1/deployment")));
    }

    @Test
    void jobTagApplyAndUnsetNameAVersion() throws Exception {
        agent.json("/v1/job/web", "{\"ID\":\"web\",\"Version\":4}");
        agent.json("/v1/job/web/versions/golden/tag", "{\"Index\":50}");
        Cli.Result latest = Cli.run(env, "job", "tag", "apply", "-name", "golden", "-description", "known good",
                "web");
        assertEquals(0, latest.code(), latest.err());
        assertEquals("Job version 4 tagged with name \"golden\"\n", latest.out());
        FakeAgent.Request put = agent.last("/v1/job/web/versions/golden/tag");
        assertEquals("PUT", put.method());
        assertEquals(NomadJson.mapper().readTree("{\"JobID\":\"web\",\"Name\":\"golden\",\"Version\":4,"
                + "\"Description\":\"known good\"}"), NomadJson.mapper().readTree(put.body()));

        Cli.Result v1 = Cli.run(env, "job", "tag", "apply", "-name", "golden", "-version", "1", "web");
        assertEquals(0, v1.code(), v1.err());
        assertEquals(1, NomadJson.mapper().readTree(agent.last("/v1/job/web/versions/golden/tag").body())
                .path("Version").asLong());

        Cli.Result unset = Cli.run(env, "job", "tag", "unset", "-name", "golden", "web");
        assertEquals(0, unset.code(), unset.err());
        assertEquals("Tag \"golden\" removed from job \"web\"\n", unset.out());
        assertEquals("DELETE", agent.last("/v1/job/web/versions/golden/tag").method());

        agent.reply("/v1/job/web/versions/silver/tag", 404, "tag \"silver\" not found on job \"web\"");
        Cli.Result missing = Cli.run(env, "job", "tag", "unset", "-name", "silver", "web");
        assertEquals(1, missing.code());
        assertTrue(missing.err().startsWith("Error removing job version tag"), missing.err());

        Cli.Result noName = Cli.run(env, "job", "tag", "apply", "web");
        assertEquals(1, noName.code());
        assertTrue(noName.err().contains("-name"), noName.err());
    }
}
