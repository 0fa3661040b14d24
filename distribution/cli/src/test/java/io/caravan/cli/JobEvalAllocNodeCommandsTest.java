package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.Map;

import io.caravan.cli.format.Nomad;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class JobEvalAllocNodeCommandsTest extends FakeAgentTest {
    private Map<String, String> env;

    @BeforeEach
    void environment() {
        env = Map.of("CARAVAN_ADDR", agent.address(), "TZ", "UTC");
    }

    @Test
    void jobStatusShowsTheJobItsSummaryAndAllocations() {
        agent.json("/v1/jobs", "[{\"ID\":\"web\"}]")
                .json("/v1/job/web", """
                        {"ID":"web","Name":"web","Type":"service","Priority":50,"Datacenters":["dc1","dc2"],
                         "Namespace":"default","NodePool":"default","Status":"running","Stop":false,
                         "SubmitTime":1704207845000000000,"Periodic":null,"ParameterizedJob":null}""")
                .json("/v1/job/web/summary", """
                        {"JobID":"web","Summary":{"cache":{"Queued":1,"Starting":0,"Running":2,"Failed":0,
                         "Complete":0,"Lost":0,"Unknown":0}}}""")
                .json("/v1/job/web/evaluations", """
                        [{"ID":"0a3f1234-5678","Priority":50,"TriggeredBy":"job-register","Status":"complete",
                          "CreateIndex":9,"FailedTGAllocs":{"cache":{"NodesEvaluated":1,"DimensionExhausted":{"cpu":1}}}},
                         {"ID":"77777777-5678","Priority":50,"TriggeredBy":"queued-allocs","Status":"blocked",
                          "CreateIndex":10,"FailedTGAllocs":null}]""")
                .json("/v1/job/web/allocations", """
                        [{"ID":"8ba85cef-1111-2222-3333-444444444444","NodeID":"171a583b-aaaa-bbbb-cccc-dddddddddddd",
                          "TaskGroup":"cache","JobVersion":0,"DesiredStatus":"run","ClientStatus":"running",
                          "CreateTime":0,"ModifyTime":0}]""");
        Cli.Result r = Cli.run(env, "job", "status", "we");
        assertEquals(0, r.code(), r.err());
        assertEquals("""
                ID            = web
                Name          = web
                Submit Date   = 2024-01-02T15:04:05Z
                Type          = service
                Priority      = 50
                Datacenters   = dc1,dc2
                Namespace     = default
                Node Pool     = default
                Status        = running
                Periodic      = false
                Parameterized = false

                Summary
                Task Group  Queued  Starting  Running  Failed  Complete  Lost  Unknown
                cache       1       0         2        0       0         0     0

                Placement Failure
                Task Group "cache":
                  * Dimension "cpu" exhausted on 1 nodes

                Allocations
                ID        Node ID   Task Group  Version  Desired  Status   Created  Modified
                8ba85cef  171a583b  cache       0        run      running  <none>   <none>
                """, r.out());
        assertEquals("we", agent.last("/v1/jobs").query().replace("prefix=", ""));
        Cli.Result withEvals = Cli.run(env, "job", "status", "-evals", "web");
        assertTrue(withEvals.out().contains("""
                Evaluations
                ID        Priority  Triggered By   Status    Placement Failures
                0a3f1234  50        job-register   complete  true
                77777777  50        queued-allocs  blocked   N/A - In Progress
                """), withEvals.out());
    }

    @Test
    void unknownJobIsNomadsMessageAndExitOne() {
        agent.json("/v1/jobs", "[]");
        Cli.Result r = Cli.run(env, "job", "status", "nope");
        assertEquals(1, r.code());
        assertEquals("Error querying job: No job(s) with prefix or id \"nope\" found\n", r.err());
    }

    @Test
    void ambiguousPrefixListsTheCandidates() {
        agent.json("/v1/jobs", "[{\"ID\":\"web-a\"},{\"ID\":\"web-b\"}]");
        Cli.Result r = Cli.run(env, "job", "inspect", "web");
        assertEquals(1, r.code());
        assertEquals("Error inspecting job: Prefix matched multiple jobs:\n  web-a\n  web-b\n", r.err());
    }

    @Test
    void jobStopPurgesWithDeleteAndPrintsTheEvaluation() {
        agent.json("/v1/jobs", "[{\"ID\":\"my job\"}]").json("/v1/job/my job", "{\"EvalID\":\"e-1\",\"Index\":9}");
        Cli.Result r = Cli.run(env, "job", "stop", "-purge", "-detach", "my job");
        assertEquals(0, r.code(), r.err());
        assertEquals("e-1\n", r.out());
        FakeAgent.Request delete = agent.last("/v1/job/my job");
        assertEquals("DELETE", delete.method());
        assertEquals("purge=true", delete.query());
    }

    @Test
    void jobStopOfAPrefixAsksFirst() {
        agent.json("/v1/jobs", "[{\"ID\":\"web\"}]").json("/v1/job/web", "{\"EvalID\":\"e-1\"}");
        // No input at all (a script without -yes): nothing is stopped, exit 1.
        Cli.Result r = Cli.run(env, "job", "stop", "-detach", "we");
        assertEquals(1, r.code());
        assertEquals("Are you sure you want to stop job \"web\"? [y/N] \n", r.out());
        assertEquals("Failed to parse answer: EOF\n", r.err());
        assertEquals(0, agent.requests().stream().filter(q -> q.method().equals("DELETE")).count());

        Cli.Result yes = Cli.run(env, "job", "stop", "-detach", "-yes", "we");
        assertEquals("e-1\n", yes.out());
    }

    @Test
    void jobHistoryListsVersionsNewestFirst() {
        agent.json("/v1/jobs", "[{\"ID\":\"web\"}]").json("/v1/job/web/versions", """
                {"Versions":[{"ID":"web","Version":1,"Stable":false,"SubmitTime":1704207845000000000},
                             {"ID":"web","Version":0,"Stable":true,"SubmitTime":1704207845000000000}],"Diffs":[]}""");
        Cli.Result r = Cli.run(env, "job", "history", "web");
        assertEquals(0, r.code(), r.err());
        assertEquals("""
                Version     = 1
                Stable      = false
                Submit Date = 2024-01-02T15:04:05Z

                Version     = 0
                Stable      = true
                Submit Date = 2024-01-02T15:04:05Z
                """, r.out());
    }

    @Test
    void jobInspectWrapsTheJob() {
        agent.json("/v1/jobs", "[{\"ID\":\"web\"}]").json("/v1/job/web", "{\"ID\":\"web\",\"Priority\":50}");
        Cli.Result r = Cli.run(env, "job", "inspect", "web");
        assertEquals(0, r.code(), r.err());
        assertEquals("{\n    \"Job\": {\n        \"ID\": \"web\",\n        \"Priority\": 50\n    }\n}\n", r.out());
    }

    @Test
    void evalListAndStatus() {
        agent.json("/v1/evaluations", """
                [{"ID":"0a3f1234-5678","Priority":50,"TriggeredBy":"job-register","JobID":"web","Namespace":"default",
                  "NodeID":"","Status":"complete","FailedTGAllocs":{},"CreateTime":1704207845000000000,
                  "ModifyTime":1704207845000000000,"Type":"service","StatusDescription":""}]""")
                .json("/v1/evaluation/0a3f1234-5678", """
                {"ID":"0a3f1234-5678","Priority":50,"TriggeredBy":"job-register","JobID":"web","Namespace":"default",
                 "Status":"blocked","FailedTGAllocs":{"cache":{"NodesEvaluated":1}},"CreateTime":1704207845000000000,
                 "ModifyTime":1704207845000000000,"Type":"service","StatusDescription":"created to place remaining allocations"}""");
        Cli.Result list = Cli.run(env, "eval", "list");
        assertEquals(0, list.code(), list.err());
        assertEquals("""
                ID        Priority  Triggered By  Job ID  Namespace  Node ID  Status    Placement Failures
                0a3f1234  50        job-register  web     default    <none>   complete  false
                """, list.out());
        agent.json("/v1/evaluation/0a3f1234-5678/allocations", "[]");
        Cli.Result status = Cli.run(env, "eval", "status", "-verbose", "0a3f");
        assertEquals(0, status.code(), status.err());
        assertEquals("""
                ID                 = 0a3f1234-5678
                Create Time        = 2024-01-02T15:04:05Z
                Modify Time        = 2024-01-02T15:04:05Z
                Status             = blocked
                Status Description = created to place remaining allocations
                Type               = service
                TriggeredBy        = job-register
                Job ID             = web
                Namespace          = default
                Priority           = 50
                Placement Failures = N/A - In Progress
                Previous Eval      = <none>
                Next Eval          = <none>
                Blocked Eval       = <none>

                Failed Placements
                Task Group "cache" (failed to place 1 allocation):
                """, status.out());
    }

    @Test
    void agoUsesTheTwoLargestUnits() {
        Instant now = Instant.ofEpochSecond(1_000_000);
        long nanos = 1_000_000_000L;
        assertEquals("0s ago", Nomad.ago((1_000_000) * nanos, now));
        assertEquals("5m3s ago", Nomad.ago((1_000_000 - 303) * nanos, now));
        assertEquals("1h2m ago", Nomad.ago((1_000_000 - 3720 - 9) * nanos, now));
        assertEquals("2d3h ago", Nomad.ago((1_000_000 - 2 * 86_400 - 3 * 3600 - 60) * nanos, now));
        assertEquals("1h ago", Nomad.ago((1_000_000 - 3600) * nanos, now));
        assertEquals("", Nomad.ago(0, now));
    }
}
