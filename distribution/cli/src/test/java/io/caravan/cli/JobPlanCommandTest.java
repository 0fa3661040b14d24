package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JobPlanCommandTest extends FakeAgentTest {
    private static final String HINT = """
            To submit the job with version verification run:

            caravan job run -check-index %d %s

            When running the job with the check-index flag, the job will only be run if the
            job modify index given matches the server-side version. If the index has
            changed, another user has modified the job and the plan's results are
            potentially invalid.
            """;

    private Map<String, String> env;
    private Path file;

    @BeforeEach
    void setUp(@TempDir Path tmp) throws Exception {
        env = Map.of("CARAVAN_ADDR", agent.address(), "TZ", "UTC");
        file = tmp.resolve("web.nomad.hcl");
        Files.writeString(file, "variable \"dc\" {\n  default = \"dc1\"\n}\njob \"web\" {\n  datacenters = [var.dc]\n}\n");
    }

    @Test
    void aNewJobIsAnAdditionAndExitsOne() {
        agent.json("/v1/job/web/plan", """
                {"Annotations":{"DesiredTGUpdates":{"cache":{"Place":3,"Stop":0,"Migrate":0,"InPlaceUpdate":0,
                   "DestructiveUpdate":0,"Canary":0,"Ignore":0}}},
                 "FailedTGAllocs":null,"JobModifyIndex":0,"CreatedEvals":null,"Warnings":"",
                 "Diff":{"Type":"Added","ID":"web","Fields":null,"Objects":null,
                   "TaskGroups":[{"Type":"Added","Name":"cache","Fields":null,"Objects":null,
                     "Tasks":[{"Type":"Added","Name":"redis","Annotations":null}],"Updates":{"create":3}}]}}""");

        Cli.Result r = Cli.run(env, "job", "plan", "-var", "dc=dc2", file.toString());

        assertEquals(1, r.code(), r.err());
        assertEquals("""
                + Job: "web"
                + Task Group: "cache" (3 create)
                  + Task: "redis"

                Scheduler dry-run:
                - All tasks successfully allocated.

                Job Modify Index: 0
                """ + HINT.formatted(0, "-var=\"dc=dc2\" " + file), r.out());
        FakeAgent.Request plan = agent.last("/v1/job/web/plan");
        assertEquals("PUT", plan.method());
        assertEquals(true, plan.body().contains("\"Diff\":true"), plan.body());
    }

    @Test
    void anUnchangedJobExitsZero() {
        agent.json("/v1/job/web/plan", """
                {"Annotations":{"DesiredTGUpdates":{"cache":{"Ignore":3}}},"JobModifyIndex":42,
                 "Diff":{"Type":"None","ID":"web","TaskGroups":[{"Type":"None","Name":"cache",
                   "Tasks":[{"Type":"None","Name":"redis"}],"Updates":{"ignore":3}}]}}""");

        Cli.Result r = Cli.run(env, "job", "plan", file.toString());

        assertEquals(0, r.code(), r.err());
        assertEquals("""
                Job: "web"
                Task Group: "cache" (3 ignore)
                  Task: "redis"

                Scheduler dry-run:
                - All tasks successfully allocated.

                Job Modify Index: 42
                """ + HINT.formatted(42, file), r.out());
    }

    @Test
    void anEditShowsFieldsAlignedAndPlacementFailures() {
        agent.json("/v1/job/web/plan", """
                {"Annotations":{"DesiredTGUpdates":{"cache":{"Place":1,"InPlaceUpdate":2}}},"JobModifyIndex":7,
                 "FailedTGAllocs":{"cache":{"NodesEvaluated":1,"DimensionExhausted":{"memory":1},"NodesExhausted":1}},
                 "Diff":{"Type":"Edited","ID":"web",
                   "Fields":[{"Type":"Edited","Name":"Priority","Old":"50","New":"60","Annotations":null}],
                   "TaskGroups":[{"Type":"Edited","Name":"cache",
                     "Fields":[{"Type":"Edited","Name":"Count","Old":"2","New":"3","Annotations":["forces create"]}],
                     "Objects":[{"Type":"Added","Name":"Meta","Fields":[
                        {"Type":"Added","Name":"owner","Old":"","New":"ops"}]}],
                     "Tasks":[{"Type":"None","Name":"redis"}],"Updates":{"create":1,"in-place update":2}}]}}""");

        Cli.Result r = Cli.run(env, "job", "plan", file.toString());

        assertEquals(1, r.code(), r.err());
        assertEquals("""
                +/- Job: "web"
                +/- Priority: "50" => "60"
                +/- Task Group: "cache" (1 create, 2 in-place update)
                  +/- Count: "2" => "3" (forces create)
                  +   Meta {
                      + owner: "ops"
                      }
                      Task: "redis"

                Scheduler dry-run:
                - WARNING: Failed to place all allocations.
                  Task Group "cache" (failed to place 1 allocation):
                    * Resources exhausted on 1 nodes
                    * Dimension "memory" exhausted on 1 nodes

                Job Modify Index: 7
                """ + HINT.formatted(7, file), r.out());
    }

    @Test
    void errorsExit255() {
        Cli.Result r = Cli.run(env, "job", "plan", file.toString());
        assertEquals(255, r.code());
        assertEquals("Error during plan: Unexpected response code: 404 (404 page not found)\n", r.err());
        assertEquals(255, Cli.run(env, "job", "plan", "-bogus", file.toString()).code());
    }
}
