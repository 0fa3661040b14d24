package io.caravan.cli;

import static io.caravan.cli.EvalMonitorTest.untimed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.api.json.NomadJson;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code deployment *} and the job commands around deployments, against a fake agent. */
class DeploymentCommandsTest extends FakeAgentTest {
    static final String DEP_ID = "d8c7ef09-1111-2222-3333-444444444444";
    static final String EVAL = "e1e1e1e1-0000-1111-2222-333333333333";
    /** Two groups: "web" with a canary, auto-revert and a progress deadline, "cache" with neither. */
    static final String DEPLOYMENT = """
            {"ID":"%s","Namespace":"default","JobID":"web","JobVersion":2,"Status":"running",
             "StatusDescription":"Deployment is running but requires manual promotion",
             "TaskGroups":{
               "web":{"AutoRevert":true,"AutoPromote":false,"ProgressDeadline":600000000000,
                      "RequireProgressBy":"2026-01-02T15:14:05Z","Promoted":false,"PlacedCanaries":["a"],
                      "DesiredCanaries":1,"DesiredTotal":3,"PlacedAllocs":1,"HealthyAllocs":1,"UnhealthyAllocs":0},
               "cache":{"AutoRevert":false,"ProgressDeadline":0,"RequireProgressBy":"0001-01-01T00:00:00Z",
                        "DesiredCanaries":0,"DesiredTotal":2,"PlacedAllocs":2,"HealthyAllocs":2,"UnhealthyAllocs":0}},
             "CreateIndex":20,"ModifyIndex":25}""".formatted(DEP_ID);
    static final String DETAILS = """
            ID          = d8c7ef09
            Job ID      = web
            Job Version = 2
            Status      = running
            Description = Deployment is running but requires manual promotion

            Deployed
            Task Group  Auto Revert  Promoted  Desired  Canaries  Placed  Healthy  Unhealthy  Progress Deadline
            cache       false        N/A       2        0         2       2        0          N/A
            web         true         false     3        1         1       1        0          2026-01-02T15:14:05Z
            """;
    private static final String COMPLETE_EVAL = """
            {"ID":"%s","JobID":"web","Status":"complete","CreateIndex":30,"FailedTGAllocs":null}""".formatted(EVAL);

    private Map<String, String> env;

    @BeforeEach
    void environment() {
        env = Map.of("CARAVAN_ADDR", agent.address(), "TZ", "UTC");
    }

    private JsonNode body(String path) throws Exception {
        return NomadJson.mapper().readTree(agent.last(path).body());
    }

    @Test
    void listShowsNomadsTableInTheServersOrder() {
        agent.json("/v1/deployments", "[" + DEPLOYMENT + ","
                + DEPLOYMENT.replace(DEP_ID, "0a0a0a0a-1111-2222-3333-444444444444").replace("\"JobVersion\":2",
                "\"JobVersion\":1").replace("\"Status\":\"running\"", "\"Status\":\"successful\"")
                .replace("Deployment is running but requires manual promotion", "Deployment completed successfully")
                + "]");
        Cli.Result r = Cli.run(env, "deployment", "list");
        assertEquals(0, r.code(), r.err());
        assertEquals("""
                ID        Job ID  Job Version  Status      Description
                d8c7ef09  web     2            running     Deployment is running but requires manual promotion
                0a0a0a0a  web     1            successful  Deployment completed successfully
                """, r.out());

        Cli.Result verbose = Cli.run(env, "deployment", "list", "-verbose");
        assertTrue(verbose.outLines().get(1).startsWith(DEP_ID + "  web"), verbose.out());

        agent.json("/v1/deployments", "[]");
        assertEquals("No deployments found\n", Cli.run(env, "deployment", "list").out());
    }

    @Test
    void statusFindsTheDeploymentByPrefixAndShowsItsGroups() {
        agent.json("/v1/deployments?prefix=d8c7", "[" + DEPLOYMENT + "]");
        Cli.Result r = Cli.run(env, "deployment", "status", "d8c7");
        assertEquals(0, r.code(), r.err());
        assertEquals(DETAILS, r.out());
    }

    @Test
    void aFullIdIsReadDirectlyAndJsonPrintsTheObject() throws Exception {
        agent.json("/v1/deployment/" + DEP_ID, DEPLOYMENT);
        Cli.Result r = Cli.run(env, "deployment", "status", "-json", DEP_ID);
        assertEquals(0, r.code(), r.err());
        assertEquals(NomadJson.mapper().readTree(DEPLOYMENT), NomadJson.mapper().readTree(r.out()));
        assertTrue(agent.requests().stream().noneMatch(q -> q.path().equals("/v1/deployments")));
    }

    @Test
    void aGroupTableWithoutCanariesOrDeadlinesHasNoSuchColumns() {
        String plain = """
                {"ID":"%s","JobID":"web","JobVersion":0,"Status":"successful",
                 "StatusDescription":"Deployment completed successfully",
                 "TaskGroups":{"web":{"DesiredTotal":2,"PlacedAllocs":2,"HealthyAllocs":2,"UnhealthyAllocs":0}}}"""
                .formatted(DEP_ID);
        agent.json("/v1/deployment/" + DEP_ID, plain);
        Cli.Result r = Cli.run(env, "deployment", "status", "-verbose", DEP_ID);
        assertEquals(0, r.code(), r.err());
        assertEquals("""
                ID          = %s
                Job ID      = web
                Job Version = 0
                Status      = successful
                Description = Deployment completed successfully

                Deployed
                Task Group  Desired  Placed  Healthy  Unhealthy
                web         2        2       2        0
                """.formatted(DEP_ID), r.out());
    }

    @Test
    void prefixProblemsAreNomadsErrors() {
        agent.json("/v1/deployments?prefix=d8", "[" + DEPLOYMENT + "," + DEPLOYMENT.replace(DEP_ID,
                "d8ffffff-1111-2222-3333-444444444444") + "]");
        Cli.Result several = Cli.run(env, "deployment", "status", "d8");
        assertEquals(1, several.code());
        assertEquals("""
                Prefix matched multiple deployments

                ID        Job ID  Job Version  Status   Description
                d8c7ef09  web     2            running  Deployment is running but requires manual promotion
                d8ffffff  web     2            running  Deployment is running but requires manual promotion
                """, several.err());

        agent.json("/v1/deployments?prefix=zz", "[]");
        Cli.Result none = Cli.run(env, "deployment", "fail", "zz");
        assertEquals(1, none.code());
        assertEquals("Error retrieving deployment: Deployment ID \"zz\" matched no deployments\n", none.err());

        Cli.Result tooShort = Cli.run(env, "deployment", "pause", "d");
        assertEquals(1, tooShort.code());
        assertEquals("Error retrieving deployment: Identifier must contain at least two characters.\n",
                tooShort.err());
    }

    @Test
    void promoteSendsTheGroupsAndDetachPrintsTheEvaluation() throws Exception {
        agent.json("/v1/deployments?prefix=d8c7", "[" + DEPLOYMENT + "]")
                .json("/v1/deployment/promote/" + DEP_ID, "{\"EvalID\":\"" + EVAL + "\",\"Index\":31}");
        Cli.Result r = Cli.run(env, "deployment", "promote", "-group", "web", "-group", "cache", "-detach", "d8c7");
        assertEquals(0, r.code(), r.err());
        assertEquals("Evaluation ID: " + EVAL + "\n", r.out());
        FakeAgent.Request put = agent.last("/v1/deployment/promote/" + DEP_ID);
        assertEquals("PUT", put.method());
        assertEquals(NomadJson.mapper().readTree("""
                {"DeploymentID":"%s","All":false,"Groups":["web","cache"]}""".formatted(DEP_ID)),
                body("/v1/deployment/promote/" + DEP_ID));

        Cli.Result all = Cli.run(env, "deployment", "promote", "-detach", "d8c7");
        assertEquals(0, all.code(), all.err());
        assertEquals(NomadJson.mapper().readTree("{\"DeploymentID\":\"%s\",\"All\":true}".formatted(DEP_ID)),
                body("/v1/deployment/promote/" + DEP_ID));
    }

    @Test
    void promoteFollowsTheEvaluationWithoutDetach() {
        agent.json("/v1/deployments?prefix=d8c7", "[" + DEPLOYMENT + "]")
                .json("/v1/deployment/promote/" + DEP_ID, "{\"EvalID\":\"" + EVAL + "\"}")
                .json("/v1/evaluation/" + EVAL, COMPLETE_EVAL)
                .json("/v1/evaluation/" + EVAL + "/allocations", "[]");
        Cli.Result r = Cli.run(env, "deployment", "promote", "d8c7");
        assertEquals(0, r.code(), r.err());
        assertEquals("""
                ==> <t>: Monitoring evaluation "e1e1e1e1"
                    <t>: Evaluation triggered by job "web"
                    <t>: Evaluation status changed: "pending" -> "complete"
                ==> <t>: Evaluation "e1e1e1e1" finished with status "complete"
                """, untimed(r.out()));
    }

    @Test
    void aRefusedPromotionIsOneErrorLine() {
        agent.json("/v1/deployments?prefix=d8c7", "[" + DEPLOYMENT + "]")
                .reply("/v1/deployment/promote/" + DEP_ID, 400, "no canaries to promote");
        Cli.Result r = Cli.run(env, "deployment", "promote", "d8c7");
        assertEquals(1, r.code());
        assertEquals("Error promoting deployment: Unexpected response code: 400 (no canaries to promote)\n",
                r.err());
    }

    @Test
    void failSaysWhetherItRevertedAndFollowsTheEvaluation() throws Exception {
        agent.json("/v1/deployments?prefix=d8c7", "[" + DEPLOYMENT + "]")
                .json("/v1/deployment/fail/" + DEP_ID, "{\"EvalID\":\"" + EVAL + "\",\"RevertedJobVersion\":1}")
                .json("/v1/evaluation/" + EVAL, COMPLETE_EVAL)
                .json("/v1/evaluation/" + EVAL + "/allocations", "[]");
        Cli.Result r = Cli.run(env, "deployment", "fail", "d8c7");
        assertEquals(0, r.code(), r.err());
        List<String> lines = r.outLines();
        assertEquals("Deployment \"" + DEP_ID + "\" failed. Auto-reverted to job version 1.", lines.get(0));
        assertEquals("", lines.get(1));
        assertEquals("==> <t>: Monitoring evaluation \"e1e1e1e1\"", untimed(lines.get(2)));
        assertEquals(NomadJson.mapper().readTree("{\"DeploymentID\":\"" + DEP_ID + "\"}"),
                body("/v1/deployment/fail/" + DEP_ID));

        agent.json("/v1/deployment/fail/" + DEP_ID, "{\"EvalID\":\"" + EVAL + "\",\"RevertedJobVersion\":null}");
        Cli.Result detached = Cli.run(env, "deployment", "fail", "-detach", "d8c7");
        assertEquals(0, detached.code(), detached.err());
        assertEquals("Deployment \"" + DEP_ID + "\" failed\n", detached.out());
    }

    @Test
    void pauseAndResumeWriteThePauseFlag() throws Exception {
        agent.json("/v1/deployments?prefix=d8c7", "[" + DEPLOYMENT + "]")
                .json("/v1/deployment/pause/" + DEP_ID, "{\"EvalID\":\"\"}");
        Cli.Result paused = Cli.run(env, "deployment", "pause", "d8c7");
        assertEquals(0, paused.code(), paused.err());
        assertEquals("Deployment \"" + DEP_ID + "\" paused\n", paused.out());
        assertEquals(NomadJson.mapper().readTree("{\"DeploymentID\":\"%s\",\"Pause\":true}".formatted(DEP_ID)),
                body("/v1/deployment/pause/" + DEP_ID));

        agent.json("/v1/deployment/pause/" + DEP_ID, "{\"EvalID\":\"" + EVAL + "\"}");
        Cli.Result resumed = Cli.run(env, "deployment", "resume", "-detach", "d8c7");
        assertEquals(0, resumed.code(), resumed.err());
        assertEquals("Deployment \"" + DEP_ID + "\" resumed\n", resumed.out());
        assertEquals(NomadJson.mapper().readTree("{\"DeploymentID\":\"%s\",\"Pause\":false}".formatted(DEP_ID)),
                body("/v1/deployment/pause/" + DEP_ID));
    }

    @Test
    void unblockWritesToItsRoute() {
        agent.json("/v1/deployments?prefix=d8c7", "[" + DEPLOYMENT + "]")
                .json("/v1/deployment/unblock/" + DEP_ID, "{\"EvalID\":\"\"}");
        Cli.Result r = Cli.run(env, "deployment", "unblock", "d8c7");
        assertEquals(0, r.code(), r.err());
        assertEquals("Deployment \"" + DEP_ID + "\" unblocked\n", r.out());
        assertEquals("PUT", agent.last("/v1/deployment/unblock/" + DEP_ID).method());
    }

    @Test
    void statusMonitorPrintsEachChangeUntilTheDeploymentEnds() {
        String successful = DEPLOYMENT.replace("\"Status\":\"running\"", "\"Status\":\"successful\"")
                .replace("Deployment is running but requires manual promotion", "Deployment completed successfully")
                .replace("\"Promoted\":false", "\"Promoted\":true").replace("\"PlacedAllocs\":1", "\"PlacedAllocs\":3")
                .replace("\"HealthyAllocs\":1", "\"HealthyAllocs\":3");
        agent.json("/v1/deployments?prefix=d8c7", "[" + DEPLOYMENT + "]")
                .sequence("/v1/deployment/" + DEP_ID, DEPLOYMENT, DEPLOYMENT, successful);
        Cli.Result r = Cli.run(env, "deployment", "status", "-monitor", "d8c7");
        assertEquals(0, r.code(), r.err());
        assertEquals("""
                <t>: Monitoring deployment "d8c7ef09"

                <t>
                """ + DETAILS.replace("2026-01-02T15:14:05Z", "<t>") + """

                <t>
                ID          = d8c7ef09
                Job ID      = web
                Job Version = 2
                Status      = successful
                Description = Deployment completed successfully

                Deployed
                Task Group  Auto Revert  Promoted  Desired  Canaries  Placed  Healthy  Unhealthy  Progress Deadline
                cache       false        N/A       2        0         2       2        0          N/A
                web         true         true      3        1         3       3        0          <t>
                """, untimed(r.out()));
    }

    @Test
    void monitorAndJsonDoNotGoTogether() {
        Cli.Result r = Cli.run(env, "deployment", "status", "-monitor", "-json", "d8c7");
        assertEquals(1, r.code());
        assertTrue(r.err().startsWith("The monitor flag cannot be used with the '-json' or '-t' flags\n"), r.err());
    }
}
