package io.caravan.scheduler.internal.reconcile;

import static io.caravan.scheduler.testing.TestAllocs.running;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.Job;
import io.caravan.api.model.Node;
import io.caravan.scheduler.testing.TestAllocs;
import io.caravan.scheduler.testing.TestJobs;
import io.caravan.scheduler.testing.TestNodes;

class SystemReconcilerTest {
    private static final Node N1 = TestNodes.node("n1").build();
    private static final Node N2 = TestNodes.node("n2").build();
    private static final Node DOWN = TestNodes.node("n3").status(Node.STATUS_DOWN).build();
    private static final Node INELIGIBLE = TestNodes.node("n4").ineligible().build();
    private static final Node OTHER_DC = TestNodes.node("n5").dc("dc2").build();

    private static Job job(String type, long version) {
        return TestJobs.job("sys").type(type).version(version).group(TestJobs.group("web", 1).build()).build();
    }

    private record Row(String name, Job job, boolean sysbatch, List<Allocation> allocs, String expected) {
    }

    private static List<Row> rows() {
        Job v0 = job(Job.TYPE_SYSTEM, 0);
        Job sb = job(Job.TYPE_SYSBATCH, 0);
        Job v1Destructive = TestJobs.job("sys").type(Job.TYPE_SYSTEM).version(1).group(TestJobs.group("web", 1)
                .task(TestJobs.task("server", "raw_exec", 900, 256)).build()).build();
        List<Row> rows = new ArrayList<>();
        rows.add(new Row("every eligible node", v0, false, List.of(), "place=n1/NEW,n2/NEW"));
        rows.add(new Row("covered node ignored", v0, false, List.of(running(v0, "a1", 0, "n1")), "place=n2/NEW"));
        rows.add(new Row("down node: lost", v0, false, List.of(running(v0, "a3", 0, "n3")),
                "place=n1/NEW,n2/NEW;stop=a3:" + AllocStop.LOST));
        rows.add(new Row("ineligible node: kept", v0, false, List.of(running(v0, "a4", 0, "n4")),
                "place=n1/NEW,n2/NEW"));
        rows.add(new Row("untargeted ready node: stopped", v0, false, List.of(running(v0, "a5", 0, "n5")),
                "place=n1/NEW,n2/NEW;stop=a5:" + AllocStop.NOT_NEEDED));
        // Migrate on a node that stays eligible (an alloc stop through the API): stopped, and the node gets a new one.
        rows.add(new Row("migrating: stopped", v0, false, List.of(TestAllocs.alloc(v0, "a1", "web", 0, "n1",
                Allocation.DESIRED_RUN, Allocation.CLIENT_RUNNING, TestAllocs.migrate(), null, null, 0)),
                "place=n1/NEW,n2/NEW;stop=a1:" + AllocStop.MIGRATING));
        rows.add(new Row("job update: destructive on the same node", v1Destructive, false,
                List.of(running(v0, "a1", 0, "n1")), "place=n1/DESTRUCTIVE,n2/NEW"));
        rows.add(new Row("system: failed alloc is replaced", v0, false,
                List.of(TestAllocs.failed(v0, "f1", 0, "n1", java.time.Instant.EPOCH, null)),
                "place=n1/DESTRUCTIVE,n2/NEW"));
        rows.add(new Row("sysbatch: finished work is not re-run", sb, true,
                List.of(TestAllocs.complete(sb, "c1", 0, "n1")), "place=n2/NEW"));
        rows.add(new Row("stopped job", v0.withStop(true), false, List.of(running(v0, "a1", 0, "n1")),
                "stop=a1:" + AllocStop.NOT_NEEDED));
        return rows;
    }

    @TestFactory
    Stream<DynamicTest> reconcile() {
        return rows().stream().map(r -> DynamicTest.dynamicTest(r.name(), () -> {
            List<Node> eligible = Boolean.TRUE.equals(r.job().stop()) ? List.of() : List.of(N1, N2);
            ReconcileResult result = SystemReconciler.reconcile(new SystemInput(r.job(), r.sysbatch(), r.allocs(),
                    eligible, Map.of("n1", N1, "n2", N2, "n3", DOWN, "n4", INELIGIBLE, "n5", OTHER_DC),
                    TestAllocs.eval("e", r.job(), "job-register"), 0));
            assertEquals(r.expected(), summary(result));
        }));
    }

    private static String summary(ReconcileResult r) {
        List<String> parts = new ArrayList<>();
        if (!r.placements().isEmpty()) {
            parts.add("place=" + r.placements().stream().map(p -> p.nodeId() + "/" + p.kind()).sorted()
                    .collect(Collectors.joining(",")));
        }
        if (!r.stops().isEmpty()) {
            parts.add("stop=" + r.stops().stream().map(s -> s.alloc().id() + ":" + s.description()).sorted()
                    .collect(Collectors.joining(",")));
        }
        return String.join(";", parts);
    }
}
