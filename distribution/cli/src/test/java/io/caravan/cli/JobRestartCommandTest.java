package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class JobRestartCommandTest extends FakeAgentTest {
    private Map<String, String> env;

    @BeforeEach
    void environment() {
        env = Map.of("CARAVAN_ADDR", agent.address(), "TZ", "UTC", "CARAVAN_MONITOR_TIMEOUT", "20s");
        agent.json("/v1/jobs", "[{\"ID\":\"web\"}]")
                .json("/v1/job/web", "{\"ID\":\"web\",\"Type\":\"service\"}")
                .json("/v1/job/web/deployments", "[{\"ID\":\"d0000000-1111\",\"Status\":\"successful\"}]");
    }

    private static String id(int i) {
        return i + "" + i + i + i + i + i + i + i + "-0000-1111-2222-333333333333";
    }

    /** {@code n} running allocations of group "app" (task "server"), plus one complete one that is skipped. */
    private void allocations(int n) {
        StringJoiner list = new StringJoiner(",", "[", "]");
        for (int i = 1; i <= n; i++) {
            list.add(stub(id(i), "running", "run"));
            agent.json("/v1/allocation/" + id(i), stub(id(i), "running", "run"))
                    .json("/v1/client/allocation/" + id(i) + "/restart", "{}");
        }
        list.add(stub(id(9), "complete", "stop"));
        agent.json("/v1/job/web/allocations", list.toString());
    }

    private static String stub(String id, String client, String desired) {
        return "{\"ID\":\"" + id + "\",\"TaskGroup\":\"app\",\"ClientStatus\":\"" + client
                + "\",\"DesiredStatus\":\"" + desired + "\",\"TaskStates\":{\"server\":{\"State\":\"running\"}}}";
    }

    private List<String> calls(String suffix) {
        return agent.requests().stream().filter(r -> r.path().endsWith(suffix))
                .map(r -> r.method() + " " + r.path()).toList();
    }

    @Test
    void restartsFiveAllocationsInBatchesOfTwo() {
        allocations(5);
        Cli.Result r = Cli.run(env, "job", "restart", "-batch-size", "2", "-yes", "web");
        assertEquals(0, r.code(), r.err());
        assertEquals("""
                ==> <t>: Restarting 5 allocations
                ==> <t>: Restarting 1st batch of 2 allocations
                    <t>: Restarting running tasks in allocation "11111111" for group "app"
                    <t>: Restarting running tasks in allocation "22222222" for group "app"
                ==> <t>: Restarting 2nd batch of 2 allocations
                    <t>: Restarting running tasks in allocation "33333333" for group "app"
                    <t>: Restarting running tasks in allocation "44444444" for group "app"
                ==> <t>: Restarting 3rd batch of 1 allocations
                    <t>: Restarting running tasks in allocation "55555555" for group "app"
                ==> <t>: Job restart finished

                Job restarted successfully!
                """, EvalMonitorTest.untimed(r.out()));
        List<String> restarts = calls("/restart");
        assertEquals(5, restarts.size(), restarts.toString());
        assertEquals("PUT /v1/client/allocation/" + id(1) + "/restart", restarts.get(0));
        assertEquals("{\"AllTasks\":false}", agent.last("/v1/client/allocation/" + id(5) + "/restart").body());
        // A batch is restarted, then seen running again, before the next one starts.
        List<String> order = agent.requests().stream().map(x -> x.method() + " " + x.path())
                .filter(p -> p.contains(id(2)) || p.contains(id(3))).toList();
        assertEquals(List.of("PUT /v1/client/allocation/" + id(2) + "/restart", "GET /v1/allocation/" + id(2),
                "PUT /v1/client/allocation/" + id(3) + "/restart", "GET /v1/allocation/" + id(3)), order);
        List<String> first = agent.requests().stream().map(x -> x.method() + " " + x.path())
                .filter(p -> p.contains(id(1)) || p.contains(id(2))).toList();
        assertEquals(List.of("PUT /v1/client/allocation/" + id(1) + "/restart",
                "PUT /v1/client/allocation/" + id(2) + "/restart", "GET /v1/allocation/" + id(1),
                "GET /v1/allocation/" + id(2)), first);
    }

    @Test
    void percentBatchSizeRoundsUp() {
        allocations(5);
        Cli.Result r = Cli.run(env, "job", "restart", "-batch-size", "50%", "-all-tasks", "-yes", "web");
        assertEquals(0, r.code(), r.err());
        String out = EvalMonitorTest.untimed(r.out());
        assertTrue(out.contains("==> <t>: Restarting 1st batch of 3 allocations\n"), out);
        assertTrue(out.contains("==> <t>: Restarting 2nd batch of 2 allocations\n"), out);
        assertTrue(out.contains("    <t>: Restarting all tasks in allocation \"11111111\" for group \"app\"\n"), out);
        assertEquals("{\"AllTasks\":true}", agent.last("/v1/client/allocation/" + id(1) + "/restart").body());
    }

    @Test
    void rescheduleStopsAndWaitsForTheReplacementToRun() {
        allocations(1);
        String next = "abcdef01-0000-1111-2222-333333333333";
        agent.json("/v1/allocation/" + id(1) + "/stop", "{\"EvalID\":\"e-1\",\"Index\":12}")
                .sequence("/v1/allocation/" + id(1), stub(id(1), "running", "run"),
                        stub(id(1), "complete", "stop").replace("}}}", "}},\"NextAllocation\":\"" + next + "\"}"))
                .sequence("/v1/allocation/" + next, stub(next, "pending", "run"), stub(next, "running", "run"));
        Cli.Result r = Cli.run(env, "job", "restart", "-reschedule", "-no-shutdown-delay", "-yes", "web");
        assertEquals(0, r.code(), r.err());
        assertEquals("""
                ==> <t>: Restarting 1 allocation
                    <t>: Rescheduling allocation "11111111" for group "app"
                    <t>: Allocation "11111111" replaced by "abcdef01", waiting for "abcdef01" to start running
                    <t>: Allocation "abcdef01" is "running"
                ==> <t>: Job restart finished

                Job restarted successfully!
                """, EvalMonitorTest.untimed(r.out()));
        assertEquals("no_shutdown_delay=true", agent.last("/v1/allocation/" + id(1) + "/stop").query());
        assertEquals(List.of(), calls("/restart"));
    }

    @Test
    void anErrorWithOnErrorFailStopsAfterTheBatchAndExitsOne() {
        allocations(3);
        agent.reply("/v1/client/allocation/" + id(1) + "/restart", 500, "task not running");
        Cli.Result r = Cli.run(env, "job", "restart", "-on-error=fail", "web");
        assertEquals(1, r.code(), r.out());
        assertEquals("""
                ==> <t>: Restarting 3 allocations
                    <t>: Restarting running tasks in allocation "11111111" for group "app"
                ==> <t>: Stopping job restart due to error
                ==> <t>: Job restart finished with errors
                """, EvalMonitorTest.untimed(r.out()));
        assertTrue(r.err().startsWith("\n1 error occurred while restarting job:\n"
                + "* Error restarting allocation \"11111111\": "), r.err());
        assertTrue(r.err().contains("task not running"), r.err());
        assertEquals(1, calls("/restart").size());
    }

    @Test
    void anErrorWithoutYesAsksAndEndOfInputCancels() {
        allocations(2);
        agent.reply("/v1/client/allocation/" + id(1) + "/restart", 500, "task not running");
        Cli.Result r = Cli.withInput("", env, "job", "restart", "web");
        assertEquals(1, r.code(), r.out());
        String out = EvalMonitorTest.untimed(r.out());
        assertTrue(out.contains("Ignore the errors above and proceed with the next batch? [y/N]"), out);
        assertTrue(out.contains("==> <t>: Job restart canceled\n"), out);
        assertEquals(1, calls("/restart").size());
    }

    @Test
    void rescheduleOfASysbatchJobIsRefused() {
        allocations(1);
        agent.json("/v1/job/web", "{\"ID\":\"web\",\"Type\":\"sysbatch\"}");
        Cli.Result r = Cli.run(env, "job", "restart", "-reschedule", "-yes", "web");
        assertEquals(1, r.code());
        assertEquals("The -reschedule option cannot be used with sysbatch jobs\n", r.err());
        assertEquals(List.of(), calls("/stop"));
    }

    @Test
    void badOptionsAreUsageErrors() {
        Cli.Result r = Cli.run(env, "job", "restart", "-batch-size", "0", "web");
        assertEquals(1, r.code());
        assertTrue(r.err().startsWith("Invalid -batch-size value \"0\": number value must be greater than zero\n"),
                r.err());
        r = Cli.run(env, "job", "restart", "-on-error", "maybe", "web");
        assertEquals(1, r.code());
        assertTrue(r.err().startsWith("Invalid -on-error value \"maybe\": valid options are \"ask\" and \"fail\""),
                r.err());
        r = Cli.run(env, "job", "restart", "-reschedule", "-task", "server", "web");
        assertTrue(r.err().startsWith("The -reschedule option cannot be used with -task\n"), r.err());
    }

    @Test
    void groupAndTaskFiltersSelectAllocations() {
        allocations(2);
        Cli.Result r = Cli.run(env, "job", "restart", "-group", "other", "-yes", "web");
        assertEquals(0, r.code(), r.err());
        assertEquals("No allocations to restart\n", r.out());
        r = Cli.run(env, "job", "restart", "-task", "server", "-yes", "web");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("Restarting task \"server\" in allocation \"11111111\" for group \"app\""),
                r.out());
        assertEquals("{\"TaskName\":\"server\",\"AllTasks\":false}",
                agent.last("/v1/client/allocation/" + id(2) + "/restart").body());
    }

    @Test
    void anActiveDeploymentStopsTheRestart() {
        allocations(2);
        agent.json("/v1/job/web/deployments", "[{\"ID\":\"d1234567-1111\",\"Status\":\"running\"}]");
        Cli.Result r = Cli.run(env, "job", "restart", "-yes", "web");
        assertEquals(1, r.code(), r.out());
        assertEquals("""
                ==> <t>: Restarting 2 allocations
                ==> <t>: Job restart finished with errors
                """, EvalMonitorTest.untimed(r.out()));
        assertEquals("\n1 error occurred while restarting job:\n* Deployment \"d1234567\" is \"running\"\n", r.err());
        assertEquals(List.of(), calls("/restart"));
    }
}
