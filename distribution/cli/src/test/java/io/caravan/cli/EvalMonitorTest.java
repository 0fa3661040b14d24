package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code job run}, {@code job stop} and {@code eval status -monitor} following an evaluation to its end. */
class EvalMonitorTest extends FakeAgentTest {
    static final String EVAL = "d8c7ef09-2ebd-5e3b-8f0f-1a2b3c4d5e6f";
    private static final String PENDING = """
            {"ID":"%s","JobID":"web","Status":"pending","CreateIndex":10,"FailedTGAllocs":null}""".formatted(EVAL);
    private static final String COMPLETE = """
            {"ID":"%s","JobID":"web","Status":"complete","CreateIndex":10,"FailedTGAllocs":null}""".formatted(EVAL);
    private static final String ALLOC = """
            [{"ID":"8ba85cef-1111-2222-3333-444444444444","NodeID":"171a583b-aaaa-bbbb-cccc-dddddddddddd",
              "TaskGroup":"cache","DesiredStatus":"run","ClientStatus":"pending","CreateIndex":11}]""";

    private Map<String, String> env;
    private Path jobFile;

    @BeforeEach
    void setUp(@TempDir Path tmp) throws Exception {
        env = Map.of("CARAVAN_ADDR", agent.address(), "TZ", "UTC");
        jobFile = tmp.resolve("web.json");
        Files.writeString(jobFile, "{\"Job\": {\"ID\": \"web\"}}");
        agent.json("/v1/jobs", "{\"EvalID\":\"" + EVAL + "\",\"EvalCreateIndex\":10,\"JobModifyIndex\":10}");
    }

    /** Timestamps vary; the rest of each line must be exact. */
    static String untimed(String out) {
        return out.replaceAll("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(Z|[+-]\\d\\d:\\d\\d)", "<t>");
    }

    @Test
    void jobRunFollowsTheEvaluationUntilItCompletes() {
        agent.sequence("/v1/evaluation/" + EVAL, PENDING, COMPLETE)
                .sequence("/v1/evaluation/" + EVAL + "/allocations", "[]", ALLOC);

        Cli.Result r = Cli.run(env, "job", "run", jobFile.toString());

        assertEquals(0, r.code(), r.err());
        assertEquals("""
                ==> <t>: Monitoring evaluation "d8c7ef09"
                    <t>: Evaluation triggered by job "web"
                    <t>: Allocation "8ba85cef" created: node "171a583b", group "cache"
                    <t>: Evaluation status changed: "pending" -> "complete"
                ==> <t>: Evaluation "d8c7ef09" finished with status "complete"
                """, untimed(r.out()));
        // The second read of the evaluation is a blocking query on the index the first one returned.
        String query = agent.last("/v1/evaluation/" + EVAL).query();
        assertEquals(true, query.matches("index=\\d+&wait=\\d+(\\.\\d+)?m?s"), query);
    }

    @Test
    void placementFailuresPrintTheMetricsAndTheBlockedEvalAndExitTwo() {
        agent.json("/v1/evaluation/" + EVAL, """
                {"ID":"%s","JobID":"web","Status":"complete","CreateIndex":10,
                 "BlockedEval":"5e3b8f0f-0000-1111-2222-333333333333",
                 "FailedTGAllocs":{"cache":{"NodesEvaluated":2,"NodesFiltered":1,"NodesExhausted":1,
                   "NodesAvailable":{"dc1":2},"ConstraintFiltered":{"${attr.kernel.name} = windows":1},
                   "DimensionExhausted":{"memory":1},"CoalescedFailures":1}}}""".formatted(EVAL))
                .json("/v1/evaluation/" + EVAL + "/allocations", "[]");

        Cli.Result r = Cli.run(env, "job", "run", "-verbose", jobFile.toString());

        assertEquals(2, r.code(), r.err());
        assertEquals("""
                ==> <t>: Monitoring evaluation "%1$s"
                    <t>: Evaluation triggered by job "web"
                    <t>: Evaluation status changed: "pending" -> "complete"
                ==> <t>: Evaluation "%1$s" finished with status "complete" but failed to place all allocations:
                    <t>: Task Group "cache" (failed to place 2 allocations):
                      * Constraint "${attr.kernel.name} = windows": 1 nodes excluded by filter
                      * Resources exhausted on 1 nodes
                      * Dimension "memory" exhausted on 1 nodes
                    <t>: Evaluation "5e3b8f0f-0000-1111-2222-333333333333" waiting for additional capacity to place remainder
                """.formatted(EVAL), untimed(r.out()));
    }

    @Test
    void anAgentThatDoesNotBlockIsPolledOnceASecond() {
        agent.frozenIndex().sequence("/v1/evaluation/" + EVAL, PENDING, PENDING, COMPLETE)
                .json("/v1/evaluation/" + EVAL + "/allocations", "[]");
        long start = System.nanoTime();

        Cli.Result r = Cli.run(env, "job", "run", jobFile.toString());

        assertEquals(0, r.code(), r.err());
        long millis = (System.nanoTime() - start) / 1_000_000;
        // First read at once, the second answers at once with the same index: a one-second pause before the third.
        assertEquals(true, millis >= 900, "took " + millis + "ms");
        assertEquals(3, agent.requests().stream().filter(q -> q.path().equals("/v1/evaluation/" + EVAL)).count());
    }

    @Test
    void aFailedEvaluationExitsTwo() {
        agent.json("/v1/evaluation/" + EVAL, COMPLETE.replace("complete", "failed"))
                .json("/v1/evaluation/" + EVAL + "/allocations", "[]");
        Cli.Result r = Cli.run(env, "job", "run", jobFile.toString());
        assertEquals(2, r.code(), r.err());
        assertEquals("==> <t>: Evaluation \"d8c7ef09\" finished with status \"failed\"",
                untimed(r.outLines().get(r.outLines().size() - 1)));
    }

    @Test
    void aMissingEvaluationIsAnErrorAndExitOne() {
        Cli.Result r = Cli.run(env, "job", "run", jobFile.toString());
        assertEquals(1, r.code());
        assertEquals("==> No evaluation with id \"" + EVAL + "\" found\n", r.err());
    }

    @Test
    void detachPrintsTheEvaluationWithoutMonitoring() {
        Cli.Result r = Cli.run(env, "job", "run", "-detach", jobFile.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals("Job registration successful\nEvaluation ID: " + EVAL + "\n", r.out());
    }

    @Test
    void theWatchIsBoundedByTheMonitorTimeout() {
        agent.json("/v1/evaluation/" + EVAL, PENDING).json("/v1/evaluation/" + EVAL + "/allocations", "[]");
        Map<String, String> impatient = Map.of("CARAVAN_ADDR", agent.address(), "TZ", "UTC",
                "CARAVAN_MONITOR_TIMEOUT", "300ms");
        Cli.Result r = Cli.run(impatient, "job", "run", jobFile.toString());
        assertEquals(1, r.code());
        assertEquals("==> <t>: Timed out after 300ms waiting for evaluation \"d8c7ef09\" (status \"pending\"); "
                + "it carries on, see 'caravan eval status " + EVAL + "'\n", untimed(r.err()));
    }

    @Test
    void jobStopMonitorsTheStopEvaluation() {
        agent.json("/v1/jobs", "[{\"ID\":\"web\"}]").json("/v1/job/web", "{\"EvalID\":\"" + EVAL + "\"}")
                .json("/v1/evaluation/" + EVAL, COMPLETE.replace("\"CreateIndex\":10", "\"CreateIndex\":20"))
                .json("/v1/evaluation/" + EVAL + "/allocations", ALLOC.replace("\"run\"", "\"stop\""));
        Cli.Result r = Cli.run(env, "job", "stop", "web");
        assertEquals(0, r.code(), r.err());
        assertEquals("""
                ==> <t>: Monitoring evaluation "d8c7ef09"
                    <t>: Evaluation triggered by job "web"
                    <t>: Allocation "8ba85cef" modified: node "171a583b", group "cache"
                    <t>: Evaluation status changed: "pending" -> "complete"
                ==> <t>: Evaluation "d8c7ef09" finished with status "complete"
                """, untimed(r.out()));
    }

    @Test
    void evalStatusMonitorFollowsTheChainToTheNextEvaluation() {
        String next = "77777777-8888-9999-aaaa-bbbbbbbbbbbb";
        agent.json("/v1/evaluations", "[{\"ID\":\"" + EVAL + "\"}]")
                .json("/v1/evaluation/" + EVAL, COMPLETE.replace("\"FailedTGAllocs\":null",
                        "\"NextEval\":\"" + next + "\",\"Wait\":1000000"))
                .json("/v1/evaluation/" + EVAL + "/allocations", "[]")
                .json("/v1/evaluation/" + next, COMPLETE.replace(EVAL, next))
                .json("/v1/evaluation/" + next + "/allocations", "[]");
        Cli.Result r = Cli.run(env, "eval", "status", "-monitor", "d8c7");
        assertEquals(0, r.code(), r.err());
        assertEquals("""
                ==> <t>: Monitoring evaluation "d8c7ef09"
                    <t>: Evaluation triggered by job "web"
                    <t>: Evaluation status changed: "pending" -> "complete"
                ==> <t>: Evaluation "d8c7ef09" finished with status "complete"
                ==> <t>: Monitoring next evaluation "77777777" in 1ms
                ==> <t>: Monitoring evaluation "77777777"
                    <t>: Evaluation triggered by job "web"
                    <t>: Evaluation status changed: "pending" -> "complete"
                ==> <t>: Evaluation "77777777" finished with status "complete"
                """, untimed(r.out()));
    }
}
