package io.caravan.scheduler.internal.reconcile;

import static io.caravan.scheduler.testing.TestAllocs.running;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import io.caravan.api.model.AllocDeploymentStatus;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Deployment;
import io.caravan.api.model.DeploymentState;
import io.caravan.api.model.Job;
import io.caravan.api.model.Node;
import io.caravan.api.model.TaskGroup;
import io.caravan.api.model.UpdateStrategy;
import io.caravan.scheduler.PlanAnnotations.DesiredUpdates;
import io.caravan.scheduler.testing.TestAllocs;
import io.caravan.scheduler.testing.TestJobs;
import io.caravan.scheduler.testing.TestNodes;

/** Table-driven: the deployment transitions of a rolling service group (existing state → what the reconciler asks). */
class DeploymentReconcileTest {
    private static final Instant NOW = Instant.parse("2026-01-01T12:00:00Z");
    private static final long NOW_NANOS = NOW.getEpochSecond() * 1_000_000_000L;
    private static final Node UP = TestNodes.node("n1").build();

    private static UpdateStrategy update(int canary, int maxParallel, boolean autoRevert) {
        return new UpdateStrategy(null, maxParallel, UpdateStrategy.HEALTH_MANUAL, null, null, Duration.ofMinutes(10),
                canary, autoRevert, false);
    }

    /** Version {@code v} of job app, group web of 3; each version runs another command (a destructive change). */
    private static Job job(long v, UpdateStrategy update) {
        TaskGroup g = TestJobs.group("web", 3).task(TestJobs.task("server", "raw_exec", new io.caravan.api.model
                .Resources(500, null, 256, null, null, null, null, null, null, null), Map.of("command", "/bin/v" + v),
                List.of())).build();
        return TestJobs.job("app").version(v).group(g.toBuilder().update(update).build()).build();
    }

    private static final UpdateStrategy ROLL_1 = update(0, 1, false);
    private static final UpdateStrategy CANARY_1 = update(1, 1, false);
    private static final Job V1 = job(0, ROLL_1);
    private static final Job V2 = job(1, ROLL_1);
    private static final Job V1C = job(0, CANARY_1);
    private static final Job V2C = job(1, CANARY_1);

    private static Allocation in(Allocation a, String deploymentId, Boolean healthy, boolean canary) {
        return a.toBuilder().deploymentId(deploymentId)
                .deploymentStatus(new AllocDeploymentStatus(healthy, null, canary, 0)).build();
    }

    private static List<Allocation> old3(Job v1) {
        return List.of(running(v1, "o0", 0, "n1"), running(v1, "o1", 1, "n1"), running(v1, "o2", 2, "n1"));
    }

    private static Deployment deployment(String id, Job job, String status, int desiredTotal, int canaries,
                                         boolean promoted, int healthy) {
        DeploymentState s = new DeploymentState(false, false, Duration.ofMinutes(10), null, promoted,
                canaries > 0 ? List.of("c0") : List.of(), canaries, desiredTotal, desiredTotal, healthy, 0);
        return new Deployment(id, job.namespace(), job.id(), job.version(), job.jobModifyIndex(),
                job.jobModifyIndex(), job.createIndex(), false, Map.of("web", s), status, "", 50, 5, 5, 0, 0);
    }

    private record Row(String name, Job job, Deployment deployment, List<Allocation> allocs, String expected) {
    }

    private static List<Row> rows() {
        Deployment d1 = deployment("d1", V2, Deployment.STATUS_RUNNING, 3, 0, false, 1);
        Deployment d1c = deployment("d1", V2C, Deployment.STATUS_RUNNING, 3, 1, false, 1);
        Deployment d1cPromoted = deployment("d1", V2C, Deployment.STATUS_RUNNING, 3, 1, true, 1);
        Deployment done = deployment("d0", V1, Deployment.STATUS_SUCCESSFUL, 3, 0, false, 3);
        List<Row> rows = new ArrayList<>();
        rows.add(new Row("first run: a deployment, every allocation placed", V1, null, List.of(),
                "place=app.web[0]/NEW,app.web[1]/NEW,app.web[2]/NEW;create=total 3 canaries 0 'Deployment is running'"
                        + ";joins=dep-1"));
        rows.add(new Row("no update block: replaced at once, no deployment", job(1, null), null,
                old3(job(0, null)), "place=app.web[0]/DESTRUCTIVE,app.web[1]/DESTRUCTIVE,app.web[2]/DESTRUCTIVE"));
        rows.add(new Row("max_parallel = 0: no deployment", job(1, update(0, 0, false)), null,
                old3(job(0, update(0, 0, false))),
                "place=app.web[0]/DESTRUCTIVE,app.web[1]/DESTRUCTIVE,app.web[2]/DESTRUCTIVE"));
        rows.add(new Row("destructive update: max_parallel at a time under a new deployment", V2, done, old3(V1),
                "place=app.web[0]/DESTRUCTIVE;create=total 3 canaries 0 'Deployment is running';joins=dep-1"));
        rows.add(new Row("the roll goes on once the new allocation is healthy", V2, d1,
                List.of(in(running(V2, "n0", 0, "n1"), "d1", true, false), running(V1, "o1", 1, "n1"),
                        running(V1, "o2", 2, "n1")), "place=app.web[1]/DESTRUCTIVE;joins=d1"));
        rows.add(new Row("a new allocation not yet healthy holds the roll", V2, d1,
                List.of(in(running(V2, "n0", 0, "n1"), "d1", null, false), running(V1, "o1", 1, "n1"),
                        running(V1, "o2", 2, "n1")), "joins=d1"));
        rows.add(new Row("an unhealthy allocation stops the roll", V2, d1,
                List.of(in(running(V2, "n0", 0, "n1"), "d1", false, false), running(V1, "o1", 1, "n1"),
                        running(V1, "o2", 2, "n1")), "joins=d1"));
        rows.add(new Row("canary first, the old allocations held", V2C, deployment("d0", V1C,
                Deployment.STATUS_SUCCESSFUL, 3, 0, false, 3), old3(V1C),
                "place=app.web[0]/NEW/canary;create=total 3 canaries 1 "
                        + "'Deployment is running but requires manual promotion';joins=dep-1"));
        rows.add(new Row("a healthy canary waits for promotion", V2C, d1c,
                List.of(running(V1C, "o0", 0, "n1"), running(V1C, "o1", 1, "n1"), running(V1C, "o2", 2, "n1"),
                        in(running(V2C, "c0", 0, "n1"), "d1", true, true)), "joins=d1"));
        rows.add(new Row("promoted: the old allocation with the canary's name stops, the roll starts", V2C,
                d1cPromoted, List.of(running(V1C, "o0", 0, "n1"), running(V1C, "o1", 1, "n1"),
                        running(V1C, "o2", 2, "n1"), in(running(V2C, "c0", 0, "n1"), "d1", true, true)),
                "place=app.web[1]/DESTRUCTIVE;stop=o0;joins=d1"));
        rows.add(new Row("a paused deployment places nothing", V2,
                deployment("d1", V2, Deployment.STATUS_PAUSED, 3, 0, false, 0), old3(V1), "joins=d1"));
        rows.add(new Row("a failed deployment places nothing", V2,
                deployment("d1", V2, Deployment.STATUS_FAILED, 3, 0, false, 0), old3(V1), ""));
        rows.add(new Row("a failed deployment's unpromoted canary stops", V2C,
                deployment("d1", V2C, Deployment.STATUS_FAILED, 3, 1, false, 0),
                List.of(running(V1C, "o0", 0, "n1"), running(V1C, "o1", 1, "n1"), running(V1C, "o2", 2, "n1"),
                        in(running(V2C, "c0", 0, "n1"), "d1", false, true)), "stop=c0"));
        rows.add(new Row("a newer version cancels the running deployment", job(2, ROLL_1), d1,
                List.of(in(running(V2, "n0", 0, "n1"), "d1", true, false), running(V1, "o1", 1, "n1"),
                        running(V1, "o2", 2, "n1")), "place=app.web[0]/DESTRUCTIVE;create=total 3 canaries 0 "
                + "'Deployment is running';update=d1:cancelled:Cancelled due to newer version of job;joins=dep-1"));
        rows.add(new Row("a newer version stops the old deployment's unpromoted canary", job(2, CANARY_1), d1c,
                List.of(running(V1C, "o0", 0, "n1"), running(V1C, "o1", 1, "n1"), running(V1C, "o2", 2, "n1"),
                        in(running(V2C, "c0", 0, "n1"), "d1", true, true)),
                "place=app.web[0]/NEW/canary;stop=c0;create=total 3 canaries 1 "
                        + "'Deployment is running but requires manual promotion';"
                        + "update=d1:cancelled:Cancelled due to newer version of job;joins=dep-1"));
        rows.add(new Row("a stopped job cancels its deployment", TestJobs.job("app").stopped()
                .group(V2.taskGroups().get(0)).version(1).build(), d1,
                List.of(in(running(V2, "n0", 0, "n1"), "d1", true, false)),
                "stop=n0;update=d1:cancelled:Cancelled because job is stopped"));
        rows.add(new Row("all healthy and nothing left: successful", V2,
                deployment("d1", V2, Deployment.STATUS_RUNNING, 3, 0, false, 3),
                List.of(in(running(V2, "n0", 0, "n1"), "d1", true, false),
                        in(running(V2, "n1", 1, "n1"), "d1", true, false),
                        in(running(V2, "n2", 2, "n1"), "d1", true, false)),
                "update=d1:successful:Deployment completed successfully;joins=d1"));
        rows.add(new Row("promoted canaries and all healthy: successful", V2C,
                deployment("d1", V2C, Deployment.STATUS_RUNNING, 3, 1, true, 3),
                List.of(in(running(V2C, "c0", 0, "n1"), "d1", true, true),
                        in(running(V2C, "n1", 1, "n1"), "d1", true, false),
                        in(running(V2C, "n2", 2, "n1"), "d1", true, false)),
                "update=d1:successful:Deployment completed successfully;joins=d1"));
        rows.add(new Row("the same version after success: nothing to do", V1, done,
                List.of(running(V1, "a0", 0, "n1"), running(V1, "a1", 1, "n1"), running(V1, "a2", 2, "n1")), ""));
        return rows;
    }

    private static ReconcileResult reconcile(Job job, Deployment d, List<Allocation> allocs, boolean batch) {
        AtomicInteger ids = new AtomicInteger();
        return ClusterReconciler.reconcile(new ReconcileInput(job, batch, allocs, Map.of("n1", UP),
                TestAllocs.eval("eval-0", job, "job-register"), NOW_NANOS, () -> "dep-" + ids.incrementAndGet(),
                d));
    }

    @TestFactory
    Stream<DynamicTest> transitions() {
        return rows().stream().map(r -> DynamicTest.dynamicTest(r.name(),
                () -> assertEquals(r.expected(), summary(reconcile(r.job(), r.deployment(), r.allocs(), false)))));
    }

    @Test
    void planAnnotationsCountCanaries() {
        DesiredUpdates u = reconcile(V2C, null, old3(V1C), false).desiredTgUpdates().get("web");
        assertEquals(1, u.canary());
        assertEquals(0, u.destructiveUpdate());
        assertEquals(3, u.ignore(), "the old allocations are held");
    }

    @Test
    void aBatchJobWithAnUpdateBlockKeepsTodaysBehaviour() {
        Job v1 = TestJobs.job("app").type(Job.TYPE_BATCH).group(V1.taskGroups().get(0)).build();
        ReconcileResult r = reconcile(v1, null, List.of(), true);
        assertEquals(null, r.deployment());
        assertEquals(3, r.placements().size());
    }

    @Test
    void aNewDeploymentTakesTheGroupsStrategyAndTheJobsVersion() {
        Job v2 = job(1, new UpdateStrategy(null, 2, null, null, null, Duration.ofMinutes(3), 0, true, false));
        Deployment d = reconcile(v2, null, old3(V1), false).deployment();
        assertEquals(1L, d.jobVersion());
        assertEquals(v2.createIndex(), d.jobCreateIndex());
        assertEquals(Deployment.STATUS_RUNNING, d.status());
        DeploymentState s = d.taskGroups().get("web");
        assertEquals(Duration.ofMinutes(3), s.progressDeadline());
        assertEquals(true, s.autoRevert());
        assertEquals(2, reconcile(v2, null, old3(V1), false).placements().size(), "max_parallel = 2");
    }

    private static String summary(ReconcileResult r) {
        List<String> parts = new ArrayList<>();
        if (!r.placements().isEmpty()) {
            parts.add("place=" + r.placements().stream().map(p -> p.name() + "/" + p.kind()
                    + (p.canary() ? "/canary" : "")).collect(Collectors.joining(",")));
        }
        if (!r.stops().isEmpty()) {
            parts.add("stop=" + r.stops().stream().map(s -> s.alloc().id()).sorted()
                    .collect(Collectors.joining(",")));
        }
        if (r.deployment() != null) {
            DeploymentState s = r.deployment().taskGroups().get("web");
            parts.add("create=total " + s.desiredTotal() + " canaries " + s.desiredCanaries() + " '"
                    + r.deployment().statusDescription() + "'");
        }
        if (!r.deploymentUpdates().isEmpty()) {
            parts.add("update=" + r.deploymentUpdates().stream().map(u -> u.deploymentId() + ":" + u.status() + ":"
                    + u.statusDescription()).collect(Collectors.joining(",")));
        }
        if (r.deploymentId() != null) {
            parts.add("joins=" + r.deploymentId());
        }
        return String.join(";", parts);
    }
}
