package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.caravan.api.model.AllocDeploymentStatus;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Deployment;
import io.caravan.api.model.DeploymentState;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.state.StateStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The watcher's decisions on state built through the FSM, with the time passed in. */
class DeploymentWatcherTest {
    private static final long T0 = 1_000_000_000_000_000_000L;
    private static final Instant START = Instant.ofEpochSecond(0, T0);
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
    private final StateStore store = StateStore.create(NomadTables.ALL, timers, timers);
    private final Fsm fsm = new Fsm(store);
    private long index = 1;
    private final AtomicInteger ids = new AtomicInteger();

    @AfterEach
    void stop() {
        timers.shutdownNow();
    }

    private Command.Result apply(Command c) {
        return fsm.apply(++index, CommandCodec.decode(CommandCodec.encode(c)));
    }

    private Job job() {
        return store.snapshot().get(NomadTables.JOBS, "default\0web").orElseThrow();
    }

    private Deployment deployment() {
        return store.snapshot().get(NomadTables.DEPLOYMENTS, "d1").orElseThrow();
    }

    private Optional<Command> decide(Instant now, boolean progressed) {
        return DeploymentWatcher.decide(store.snapshot(), deployment(), now, progressed,
                () -> "w" + ids.incrementAndGet());
    }

    /**
     * Version 0 (priority 50) registered and marked stable, version 1 (priority 70) registered; a deployment of
     * version 1 for group web with {@code canaries} canaries among {@code allocs} placed allocations.
     */
    private void deploy(int desiredTotal, int canaries, boolean autoRevert, boolean autoPromote, int allocs,
                        String description) throws Exception {
        apply(new Command.NodeRegister(NodeLifecycleTest.node("n", "ready"), List.of()));
        Job v0 = FsmTest.job("web", 50);
        apply(new Command.JobRegister(v0, Evaluation.forJob("e0", v0, "job-register", 0), false, 0));
        apply(new Command.JobStability("default", "web", 0, true));
        Job v1 = FsmTest.job("web", 70);
        apply(new Command.JobRegister(v1, Evaluation.forJob("e1", v1, "job-register", 0), false, 0));
        DeploymentState s = new DeploymentState(autoRevert, autoPromote, Duration.ofMinutes(10), null, false,
                List.of(), canaries, desiredTotal, 0, 0, 0);
        Job job = job();
        Deployment d = new Deployment("d1", "default", "web", job.version(), job.jobModifyIndex(),
                job.jobModifyIndex(), job.createIndex(), false, Map.of("web", s), Deployment.STATUS_RUNNING,
                description, 70, 0, 0, 0, 0);
        List<Allocation> placed = new java.util.ArrayList<>();
        for (int i = 0; i < allocs; i++) {
            placed.add(DeploymentApplyTest.alloc("a" + i, "d1", i < canaries));
        }
        apply(new Command.PlanApply("e1", job, List.of(), placed, T0, d, List.of()));
    }

    private void health(String allocId, boolean healthy) {
        Evaluation eval = DeploymentWatcher.eval(job(), deployment(), () -> "h" + ids.incrementAndGet(), T0);
        assertEquals(0, apply(new Command.DeploymentAllocHealth("d1", healthy ? List.of(allocId) : List.of(),
                healthy ? List.of() : List.of(allocId), eval, T0)).errorCode());
    }

    @Test
    void aMissedProgressDeadlineFailsTheDeployment() throws Exception {
        deploy(2, 0, false, false, 2, DeploymentApply.DESCRIPTION_RUNNING);
        health("a0", true);
        assertEquals(Optional.empty(), decide(START.plus(Duration.ofMinutes(9)), false), "on time, nothing to do");
        Command c = decide(START.plus(Duration.ofMinutes(11)), false).orElseThrow();
        Command.DeploymentStatusChange fail = assertInstanceOf(Command.DeploymentStatusChange.class, c);
        assertEquals(Deployment.STATUS_FAILED, fail.status());
        assertEquals("Failed due to progress deadline", fail.statusDescription());
        assertNull(fail.revertTo(), "no auto_revert");
        assertEquals(Evaluation.TRIGGER_DEPLOYMENT_WATCHER, fail.eval().triggeredBy());
        assertEquals("d1", fail.eval().deploymentId());
    }

    @Test
    void anUnhealthyAllocationFailsTheDeploymentAndAutoRevertRegistersTheStableVersion() throws Exception {
        deploy(2, 0, true, false, 2, DeploymentApply.DESCRIPTION_RUNNING);
        health("a1", false);
        Command.DeploymentStatusChange fail = assertInstanceOf(Command.DeploymentStatusChange.class,
                decide(START, false).orElseThrow());
        assertEquals("Failed due to unhealthy allocations - rolling back to job version 0",
                fail.statusDescription());
        assertEquals(0, apply(fail).errorCode());
        assertEquals(Deployment.STATUS_FAILED, deployment().status());
        Job now = job();
        assertEquals(2L, now.version(), "the stable spec comes back as a new version");
        assertEquals(50, now.priority());
        assertTrue(!Boolean.TRUE.equals(now.stable()), "a reverted version is not stable until it succeeds");
        assertEquals(Optional.empty(), decide(START, true), "a failed deployment is left alone");
    }

    @Test
    void autoPromoteOnceEveryCanaryIsHealthy() throws Exception {
        deploy(2, 1, false, true, 1, DeploymentWatcher.RUNNING_AUTO_PROMOTION);
        assertEquals(Optional.empty(), decide(START, false), "the canary is not healthy yet");
        health("a0", true);
        Command.DeploymentPromotion promote = assertInstanceOf(Command.DeploymentPromotion.class,
                decide(START, true).orElseThrow());
        assertTrue(promote.all());
        assertEquals(0, apply(promote).errorCode());
        assertTrue(deployment().taskGroups().get("web").promoted());
    }

    @Test
    void withoutAutoPromoteItSaysItWaitsForManualPromotion() throws Exception {
        deploy(2, 1, false, false, 1, DeploymentApply.DESCRIPTION_RUNNING);
        health("a0", true);
        Command.DeploymentStatusChange c = assertInstanceOf(Command.DeploymentStatusChange.class,
                decide(START, false).orElseThrow());
        assertEquals(Deployment.STATUS_RUNNING, c.status());
        assertEquals("Deployment is running but requires manual promotion", c.statusDescription());
        apply(c);
        assertEquals(Optional.empty(), decide(START.plus(Duration.ofMinutes(30)), false),
                "healthy canaries waiting for an operator miss no deadline");
    }

    @Test
    void allHealthyMarksTheDeploymentSuccessfulAndTheVersionStable() throws Exception {
        deploy(2, 0, false, false, 2, DeploymentApply.DESCRIPTION_RUNNING);
        health("a0", true);
        Command.EvalUpsert eval = assertInstanceOf(Command.EvalUpsert.class, decide(START, true).orElseThrow(),
                "health moved: the reconciler is asked to continue");
        assertEquals(Evaluation.TRIGGER_DEPLOYMENT_WATCHER, eval.evals().get(0).triggeredBy());
        assertEquals("d1", eval.evals().get(0).deploymentId());
        assertEquals(Optional.empty(), decide(START, false));
        health("a1", true);
        Command.DeploymentStatusChange ok = assertInstanceOf(Command.DeploymentStatusChange.class,
                decide(START, true).orElseThrow());
        assertEquals(Deployment.STATUS_SUCCESSFUL, ok.status());
        assertEquals("Deployment completed successfully", ok.statusDescription());
        apply(ok);
        assertTrue(job().stable());
        assertEquals(1L, job().version());
    }

    @Test
    void runningAsALeaderDutyItWritesThroughRaftOnceHealthMoves() throws Exception {
        ServerState server = new ServerState();
        AtomicLong raftIndex = new AtomicLong(10);
        RaftWrites raft = JobLimitsTest.writes(server, raftIndex);
        ScheduledExecutorService leader = Executors.newSingleThreadScheduledExecutor();
        // The watcher's clock at the plan's time: with the system clock the deployment (placed at T0, in 2001) is
        // long past its progress deadline, and a look that ran before the health write (a loaded machine) failed it.
        DeploymentWatcher watcher = new DeploymentWatcher(server.store(), raft,
                java.time.Clock.fixed(java.time.Instant.ofEpochSecond(0, T0), java.time.ZoneOffset.UTC), leader);
        try {
            Job v0 = FsmTest.job("web", 50);
            raft.submit(new Command.JobRegister(v0, Evaluation.forJob("e0", v0, "job-register", 0), false, 0))
                    .toCompletableFuture().join();
            Job job = server.store().snapshot().get(NomadTables.JOBS, "default\0web").orElseThrow();
            Command.PlanApply plan = new Command.PlanApply("e0", job, List.of(), List.of(
                    DeploymentApplyTest.alloc("a0", "d1", false)), T0, DeploymentApplyTest.deployment("d1", job, 1, 0),
                    List.of());
            raft.submit(plan).toCompletableFuture().join();
            watcher.applied(plan);
            Evaluation eval = DeploymentWatcher.eval(job, server.store().snapshot().get(NomadTables.DEPLOYMENTS, "d1")
                    .orElseThrow(), () -> "h1", T0);
            Command health = new Command.DeploymentAllocHealth("d1", List.of("a0"), List.of(), eval, T0);
            raft.submit(health).toCompletableFuture().join();
            watcher.applied(health);
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (!Deployment.STATUS_SUCCESSFUL.equals(server.store().snapshot().get(NomadTables.DEPLOYMENTS, "d1")
                    .orElseThrow().status()) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(Deployment.STATUS_SUCCESSFUL, server.store().snapshot().get(NomadTables.DEPLOYMENTS, "d1")
                    .orElseThrow().status());
            assertTrue(server.store().snapshot().get(NomadTables.JOBS, "default\0web").orElseThrow().stable());
        } finally {
            watcher.close();
            leader.shutdownNow();
            server.deactivate();
        }
    }
}
