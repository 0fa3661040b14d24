package io.caravan.scheduler.internal.placement.check;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.caravan.api.model.Job;
import io.caravan.api.model.Node;
import io.caravan.api.model.TaskGroup;
import io.caravan.scheduler.internal.placement.EvalContext;
import io.caravan.scheduler.internal.placement.FeasibilityCheck;
import io.caravan.scheduler.internal.placement.PlacementRequest;
import io.caravan.scheduler.internal.placement.TestContexts;
import io.caravan.scheduler.internal.placement.Verdict;
import io.caravan.scheduler.testing.InMemoryState;
import io.caravan.scheduler.testing.TestAllocs;
import io.caravan.scheduler.testing.TestJobs;
import io.caravan.scheduler.testing.TestNodes;

/** Each row: a check, a job, a node → the verdict ("pass" or the rejection reason, "/class" if class-wide). */
class ChecksTest {
    private static Job job(TestJobs j) {
        return j.build();
    }

    private static Job withGroup(TaskGroup g) {
        return TestJobs.job("app").group(g).build();
    }

    static Stream<Arguments> rows() {
        Node linux = TestNodes.node("n1").build();
        return Stream.of(
                Arguments.of("ready node", new NodeReadyCheck(), job(TestJobs.job("app")), linux, "pass"),
                Arguments.of("down node", new NodeReadyCheck(), job(TestJobs.job("app")),
                        TestNodes.node("n1").status(Node.STATUS_DOWN).build(), "node not ready"),
                Arguments.of("ineligible node", new NodeReadyCheck(), job(TestJobs.job("app")),
                        TestNodes.node("n1").ineligible().build(), "node not ready"),
                Arguments.of("draining node", new NodeReadyCheck(), job(TestJobs.job("app")),
                        TestNodes.node("n1").draining().build(), "node not ready"),
                Arguments.of("dc exact", new DatacenterCheck(), job(TestJobs.job("app").datacenters("dc1")), linux,
                        "pass"),
                Arguments.of("dc glob", new DatacenterCheck(), job(TestJobs.job("app").datacenters("d*")), linux,
                        "pass"),
                Arguments.of("dc star", new DatacenterCheck(), job(TestJobs.job("app").datacenters("*")), linux,
                        "pass"),
                Arguments.of("dc other", new DatacenterCheck(), job(TestJobs.job("app").datacenters("eu-*")), linux,
                        "datacenter/class"),
                Arguments.of("default pool", new NodePoolCheck(), job(TestJobs.job("app")), linux, "pass"),
                Arguments.of("other pool", new NodePoolCheck(), job(TestJobs.job("app").pool("gpu")), linux,
                        "node pool/class"),
                Arguments.of("pool all", new NodePoolCheck(), job(TestJobs.job("app").pool("all")),
                        TestNodes.node("n1").pool("gpu").build(), "pass"),
                Arguments.of("driver healthy", new DriverCheck(), job(TestJobs.job("app")), linux, "pass"),
                Arguments.of("driver unhealthy", new DriverCheck(), job(TestJobs.job("app")),
                        TestNodes.node("n1").driver("raw_exec", true, false).build(), "missing drivers/class"),
                Arguments.of("driver from attribute", new DriverCheck(), job(TestJobs.job("app")),
                        TestNodes.node("n1").noDriverInfo("raw_exec").build(), "pass"),
                Arguments.of("driver absent", new DriverCheck(), job(TestJobs.job("app")),
                        TestNodes.node("n1").noDriverInfo("raw_exec").attr("driver.raw_exec", null).build(),
                        "missing drivers/class"),
                Arguments.of("job constraint holds", ConstraintCheck.forJob(),
                        job(TestJobs.job("app").constraint("${attr.kernel.name}", "=", "linux")), linux, "pass"),
                Arguments.of("job constraint fails", ConstraintCheck.forJob(),
                        job(TestJobs.job("app").constraint("${attr.kernel.name}", "=", "windows")), linux,
                        "${attr.kernel.name} = windows/class"),
                Arguments.of("unique constraint is not class-wide", ConstraintCheck.forJob(),
                        job(TestJobs.job("app").constraint("${node.unique.id}", "=", "n2")), linux,
                        "${node.unique.id} = n2"),
                Arguments.of("group constraint", ConstraintCheck.forTaskGroup(),
                        withGroup(TestJobs.group("web", 1).constraint("${meta.rack}", "is_set", "").build()), linux,
                        "${meta.rack} is_set /class"),
                Arguments.of("host volume present", new HostVolumeCheck(),
                        withGroup(TestJobs.group("web", 1).hostVolume("data", "data", false).build()),
                        TestNodes.node("n1").hostVolume("data", false).build(), "pass"),
                Arguments.of("host volume read-only", new HostVolumeCheck(),
                        withGroup(TestJobs.group("web", 1).hostVolume("data", "data", false).build()),
                        TestNodes.node("n1").hostVolume("data", true).build(), "missing compatible host volumes"),
                Arguments.of("host volume missing", new HostVolumeCheck(),
                        withGroup(TestJobs.group("web", 1).hostVolume("data", "data", true).build()), linux,
                        "missing compatible host volumes"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void verdicts(String name, FeasibilityCheck check, Job job, Node node, String expected) {
        EvalContext ctx = TestContexts.context(new InMemoryState().node(node), job);
        PlacementRequest request = PlacementRequest.of(job, job.taskGroups().get(0), "app.web[0]", Set.of(), null);
        assertEquals(expected, describe(check.test(request, node, ctx)));
    }

    static Stream<Arguments> distinctRows() {
        return Stream.of(
                Arguments.of("distinct_hosts free node", new DistinctHostsCheck(), "n2", "pass"),
                Arguments.of("distinct_hosts taken node", new DistinctHostsCheck(), "n1", "distinct_hosts"),
                Arguments.of("distinct_property rack taken", new DistinctPropertyCheck(), "n2", "distinct_property"),
                Arguments.of("distinct_property other rack", new DistinctPropertyCheck(), "n3", "pass"));
    }

    /** n1 (rack r1) already runs one allocation of the group; n2 is in r1 too, n3 in r2. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("distinctRows")
    void distinct(String name, FeasibilityCheck check, String nodeId, String expected) {
        Job job = withGroup(TestJobs.group("web", 3).constraint("", "distinct_hosts", "true")
                .constraint("${meta.rack}", "distinct_property", "1").build());
        InMemoryState state = new InMemoryState()
                .node(TestNodes.node("n1").meta("rack", "r1").build())
                .node(TestNodes.node("n2").meta("rack", "r1").build())
                .node(TestNodes.node("n3").meta("rack", "r2").build());
        state.job(job).alloc(TestAllocs.running(job, "a0", 0, "n1"));
        EvalContext ctx = TestContexts.context(state, job);
        PlacementRequest request = PlacementRequest.of(job, job.taskGroups().get(0), "app.web[1]", Set.of(), null);
        assertEquals(expected, describe(check.test(request, state.node(nodeId).orElseThrow(), ctx)));
    }

    private static String describe(Verdict v) {
        if (v instanceof Verdict.Reject) {
            Verdict.Reject r = (Verdict.Reject) v;
            return r.reason() + (r.classWide() ? "/class" : "");
        }
        return "pass";
    }
}
