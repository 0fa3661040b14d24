package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.Deployment;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.state.StateSnapshot;
import io.caravan.state.StateStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Garbage collection's rules per kind of object, on the real FSM: what goes once past its threshold (or at once when
 * forced), and what must stay whatever the age — a job with a running allocation, an active deployment, the current
 * and the latest stable job version, a node with work.
 */
class CoreGcTest {
    private static final long HOUR = Duration.ofHours(1).toNanos();
    private static final long T0 = 1_000 * HOUR;
    private static final CoreGc.Thresholds DEFAULTS = new CoreGc.Thresholds(Duration.ofHours(4), Duration.ofHours(1),
            Duration.ofHours(24), Duration.ofHours(1), Duration.ofHours(24), CoreGc.TRACKED_VERSIONS);

    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
    private final StateStore store = StateStore.create(NomadTables.ALL, timers, timers);
    private final Fsm fsm = new Fsm(store);
    private long index;

    @AfterEach
    void stop() {
        timers.shutdownNow();
    }

    private Command.Result apply(Command c) {
        Command.Result r = fsm.apply(++index, CommandCodec.decode(CommandCodec.encode(c)));
        assertEquals(0, r.errorCode(), r.error());
        return r;
    }

    private StateSnapshot s() {
        return store.snapshot();
    }

    /** Runs one pass as the leader would, every batch through the codec; returns how many objects it named. */
    private int gc(long nowNanos, CoreGc.Thresholds t) {
        List<Command.GcDelete> batches = CoreGc.plan(s(), nowNanos, t).batches();
        batches.forEach(this::apply);
        return batches.stream().mapToInt(CoreGc::size).sum();
    }

    private Job job(String id, String type) throws Exception {
        Job job = FsmTest.job(id, 50).toBuilder().type(type).build().withSubmitTime(T0);
        apply(new Command.JobRegister(job, null, false, 0));
        return s().get(NomadTables.JOBS, NomadTables.key("default", id)).orElseThrow();
    }

    /** The job's evaluation, complete at {@code time}, and one allocation of it with {@code clientStatus}. */
    private void ran(String jobId, String evalId, String allocId, String clientStatus, long time) throws Exception {
        Job job = s().get(NomadTables.JOBS, NomadTables.key("default", jobId)).orElseThrow();
        Evaluation eval = Evaluation.forJob(evalId, job, Evaluation.TRIGGER_JOB_REGISTER, time).toBuilder()
                .status(Evaluation.STATUS_COMPLETE).modifyTime(time).build();
        apply(new Command.EvalUpsert(List.of(eval)));
        if (allocId == null) {
            return;
        }
        Allocation alloc = DeploymentApplyTest.alloc(allocId, null, false).toBuilder().jobId(jobId).evalId(evalId)
                .build();
        apply(new Command.PlanApply(evalId, job, List.of(), List.of(alloc), time));
        apply(new Command.AllocClientUpdate(List.of(new Command.NodeAllocs("n", List.of(alloc.toBuilder()
                .clientStatus(clientStatus).build()))), time, List.of()));
    }

    private boolean has(String jobId) {
        return s().get(NomadTables.JOBS, NomadTables.key("default", jobId)).isPresent();
    }

    private void node() throws Exception {
        apply(new Command.NodeRegister(NodeLifecycleTest.node("n", "ready"), List.of()));
    }

    @Test
    void aFinishedBatchJobGoesWithItsEvalsAndAllocsOncePastTheJobThresholdOrWhenForced() throws Exception {
        node();
        job("batch", Job.TYPE_BATCH);
        ran("batch", "e1", "a1", Allocation.CLIENT_COMPLETE, T0 + HOUR);
        assertEquals(Job.STATUS_DEAD, s().get(NomadTables.JOBS, "default\0batch").orElseThrow().status());

        assertEquals(0, gc(T0 + 4 * HOUR, DEFAULTS), "finished 3h ago: younger than job_gc_threshold (4h)");
        assertTrue(has("batch"));
        assertTrue(gc(T0 + 6 * HOUR, DEFAULTS) >= 3);
        assertFalse(has("batch"));
        assertTrue(s().get(NomadTables.EVALS, "e1").isEmpty());
        assertTrue(s().get(NomadTables.ALLOCS, "a1").isEmpty());
        assertEquals(0, s().prefix(NomadTables.JOB_VERSIONS, "default\0batch\0").count());
        assertTrue(s().get(NomadTables.JOB_SUMMARIES, "default\0batch").isEmpty());
    }

    @Test
    void forcedGcIgnoresAgeButNeverTakesAJobWithARunningAllocation() throws Exception {
        node();
        job("web", Job.TYPE_SERVICE);
        ran("web", "e1", "a1", Allocation.CLIENT_RUNNING, T0);
        job("done", Job.TYPE_BATCH);
        ran("done", "e2", "a2", Allocation.CLIENT_COMPLETE, T0);

        gc(T0, CoreGc.Thresholds.FORCE);
        assertTrue(has("web"));
        assertTrue(s().get(NomadTables.EVALS, "e1").isPresent(), "its allocation runs: the evaluation stays");
        assertTrue(s().get(NomadTables.ALLOCS, "a1").isPresent());
        assertFalse(has("done"));

        // Stopped, its allocation stopped: now it goes.
        apply(new Command.JobDeregister("default", "web", false, null));
        apply(new Command.AllocClientUpdate(List.of(new Command.NodeAllocs("n", List.of(
                s().get(NomadTables.ALLOCS, "a1").orElseThrow().toBuilder().clientStatus(Allocation.CLIENT_COMPLETE)
                        .build()))), T0, List.of()));
        gc(T0, CoreGc.Thresholds.FORCE);
        assertFalse(has("web"));
    }

    @Test
    void terminalEvalsOfALiveServiceJobGoAfterEvalThresholdWithTheirTerminalAllocs() throws Exception {
        node();
        job("web", Job.TYPE_SERVICE);
        ran("web", "old", "a-old", Allocation.CLIENT_FAILED, T0);
        ran("web", "new", "a-new", Allocation.CLIENT_RUNNING, T0 + 2 * HOUR);

        gc(T0 + 30 * 60_000_000_000L, DEFAULTS);
        assertTrue(s().get(NomadTables.EVALS, "old").isPresent(), "30 minutes: younger than eval_gc_threshold");
        gc(T0 + 3 * HOUR, DEFAULTS);
        assertTrue(s().get(NomadTables.EVALS, "old").isEmpty());
        assertTrue(s().get(NomadTables.ALLOCS, "a-old").isEmpty());
        assertTrue(s().get(NomadTables.EVALS, "new").isPresent(), "its allocation runs");
        assertTrue(s().get(NomadTables.ALLOCS, "a-new").isPresent());
        assertTrue(has("web"));
    }

    @Test
    void aLiveBatchJobKeepsItsEvalsUntilTheBatchThresholdAndItsCurrentAllocsAlways() throws Exception {
        node();
        job("b", Job.TYPE_BATCH);
        ran("b", "e1", "a1", Allocation.CLIENT_COMPLETE, T0);
        ran("b", "e2", null, null, T0);   // a second, pending-free evaluation keeps nothing running
        // Another allocation still running keeps the job alive (not dead).
        Job job = s().get(NomadTables.JOBS, "default\0b").orElseThrow();
        apply(new Command.PlanApply("e2", job, List.of(), List.of(DeploymentApplyTest.alloc("a2", null, false)
                .toBuilder().jobId("b").evalId("e2").clientStatus(Allocation.CLIENT_RUNNING).build()), T0));
        assertFalse(Job.STATUS_DEAD.equals(s().get(NomadTables.JOBS, "default\0b").orElseThrow().status()));

        gc(T0 + 2 * HOUR, DEFAULTS);
        assertTrue(s().get(NomadTables.EVALS, "e1").isPresent(), "a live batch job's evals wait 24h");
        gc(T0 + 25 * HOUR, DEFAULTS);
        assertTrue(s().get(NomadTables.EVALS, "e1").isEmpty());
        assertTrue(s().get(NomadTables.ALLOCS, "a1").isPresent(), "the current version's finished run stays");
        assertTrue(has("b"));
    }

    @Test
    void terminalDeploymentsGoActiveOnesStay() throws Exception {
        node();
        Job web = job("web", Job.TYPE_SERVICE);
        Deployment running = DeploymentApplyTest.deployment("d-run", web, 1, 0);
        Deployment done = new Deployment("d-done", "default", "web", 0L, web.jobModifyIndex(), web.jobModifyIndex(),
                web.createIndex(), false, Map.of(), Deployment.STATUS_SUCCESSFUL, "done", 50, 0, 0, T0, T0);
        apply(new Command.PlanApply("e", web, List.of(), List.of(), T0, running, List.of()));
        apply(new Command.PlanApply("e", web, List.of(), List.of(), T0, done, List.of()));

        gc(T0 + 2 * HOUR, DEFAULTS);
        assertTrue(s().get(NomadTables.DEPLOYMENTS, "d-run").isPresent());
        assertTrue(s().get(NomadTables.DEPLOYMENTS, "d-done").isEmpty());
    }

    @Test
    void jobVersionsBeyondTheTrackedSixGoButNotTheLatestStableOne() throws Exception {
        Job v = FsmTest.job("web", 50).withSubmitTime(T0);
        for (int i = 0; i < 10; i++) {
            v = v.toBuilder().meta(Map.of("v", Integer.toString(i))).build();
            apply(new Command.JobRegister(v, null, false, 0));
            if (i == 1) {
                apply(new Command.JobStability("default", "web", 1, true));
            }
        }
        gc(T0, DEFAULTS);
        List<Long> kept = new ArrayList<>();
        s().prefix(NomadTables.JOB_VERSIONS, "default\0web\0").forEach(j -> kept.add(j.version()));
        assertEquals(List.of(1L, 4L, 5L, 6L, 7L, 8L, 9L), kept);
    }

    @Test
    void downNodesWithoutWorkGoAfterTheNodeThreshold() throws Exception {
        apply(new Command.NodeRegister(NodeLifecycleTest.node("gone", "ready"), List.of()));
        apply(new Command.NodeStatusUpdate("gone", "down", T0 / 1_000_000_000L, List.of()));
        apply(new Command.NodeRegister(NodeLifecycleTest.node("up", "ready"), List.of()));

        gc(T0 + HOUR, DEFAULTS);
        assertTrue(s().get(NomadTables.NODES, "gone").isPresent(), "down 1h: younger than node_gc_threshold");
        gc(T0 + 25 * HOUR, DEFAULTS);
        assertTrue(s().get(NomadTables.NODES, "gone").isEmpty());
        assertTrue(s().get(NomadTables.NODES, "up").isPresent());
    }

    @Test
    void aJobRegisteredAgainAfterThePlanIsNotPurged() throws Exception {
        node();
        job("batch", Job.TYPE_BATCH);
        ran("batch", "e1", "a1", Allocation.CLIENT_COMPLETE, T0);
        List<Command.GcDelete> batches = CoreGc.plan(s(), T0, CoreGc.Thresholds.FORCE).batches();
        apply(new Command.JobRegister(FsmTest.job("batch", 50).toBuilder().type(Job.TYPE_BATCH)
                .meta(Map.of("new", "spec")).build(), null, false, 0));
        batches.forEach(this::apply);
        assertTrue(has("batch"), "its JobModifyIndex moved since the plan: kept");
    }

    @Test
    void aLargeCollectionIsWrittenInBoundedEntries() throws Exception {
        node();
        job("web", Job.TYPE_SERVICE);
        Job job = s().get(NomadTables.JOBS, "default\0web").orElseThrow();
        List<Evaluation> evals = new ArrayList<>();
        for (int i = 0; i < 2_500; i++) {
            evals.add(Evaluation.forJob(String.format("e-%05d", i), job, Evaluation.TRIGGER_JOB_REGISTER, T0)
                    .toBuilder().status(Evaluation.STATUS_COMPLETE).modifyTime(T0).build());
        }
        apply(new Command.EvalUpsert(evals));
        List<Command.GcDelete> batches = CoreGc.plan(s(), T0 + 2 * HOUR, DEFAULTS).batches();
        assertEquals(3, batches.size());
        for (Command.GcDelete b : batches) {
            assertTrue(CoreGc.size(b) <= CoreGc.BATCH);
            assertTrue(CommandCodec.encode(b).length < 64 * 1024, "an entry stays small");
            apply(b);
        }
        assertEquals(0, s().count(NomadTables.EVALS));
    }

    @Test
    void reconcileRecountsEverySummary() throws Exception {
        node();
        job("web", Job.TYPE_SERVICE);
        ran("web", "e1", "a1", Allocation.CLIENT_RUNNING, T0);
        apply(new Command.JobSummariesReconcile(T0));
        assertEquals(1, s().get(NomadTables.JOB_SUMMARIES, "default\0web").orElseThrow().summary().get("web")
                .running());
    }
}
