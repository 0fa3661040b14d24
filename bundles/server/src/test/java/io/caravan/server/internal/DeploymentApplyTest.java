package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import io.caravan.api.json.NomadJson;
import io.caravan.api.model.AllocDeploymentStatus;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Deployment;
import io.caravan.api.model.DeploymentState;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.scheduler.DeploymentStatusUpdate;
import io.caravan.state.StateStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DeploymentApplyTest {
    private static final long T0 = 1_000_000_000_000L;
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
    private final StateStore store = StateStore.create(NomadTables.ALL, timers, timers);
    private final Fsm fsm = new Fsm(store);

    @AfterEach
    void stop() {
        timers.shutdownNow();
    }

    private Command.Result apply(long index, Command c) {
        return fsm.apply(index, CommandCodec.decode(CommandCodec.encode(c)));
    }

    static Deployment deployment(String id, Job job, int desiredTotal, int canaries) {
        DeploymentState s = new DeploymentState(false, false, Duration.ofMinutes(10), null, false, List.of(),
                canaries, desiredTotal, 0, 0, 0);
        return new Deployment(id, job.namespace(), job.id(), job.version(), job.jobModifyIndex(),
                job.jobModifyIndex(), job.createIndex(), false, Map.of("web", s), Deployment.STATUS_RUNNING,
                DeploymentApply.DESCRIPTION_RUNNING, 50, 0, 0, 0, 0);
    }

    static Allocation alloc(String id, String deploymentId, boolean canary) throws Exception {
        Allocation a = NomadJson.mapper().readValue("""
                {"ID": "%s", "Namespace": "default", "EvalID": "e", "Name": "web.web[0]", "NodeID": "n",
                 "JobID": "web", "TaskGroup": "web", "DesiredStatus": "run", "ClientStatus": "pending"}
                """.formatted(id), Allocation.class);
        return a.toBuilder().deploymentId(deploymentId)
                .deploymentStatus(new AllocDeploymentStatus(null, null, canary, 0)).build();
    }

    private Job job() {
        return store.snapshot().get(NomadTables.JOBS, "default\0web").orElseThrow();
    }

    private Deployment stored(String id) {
        return store.snapshot().get(NomadTables.DEPLOYMENTS, id).orElseThrow();
    }

    private Evaluation eval(String id) {
        return Evaluation.forJob(id, job(), Evaluation.TRIGGER_DEPLOYMENT_WATCHER, T0).toBuilder()
                .deploymentId("d1").build();
    }

    /** Node n, job web at index 2, a deployment with one canary and one other allocation placed at index 3. */
    private void placeUnderDeployment() throws Exception {
        apply(1, new Command.NodeRegister(NodeLifecycleTest.node("n", "ready"), List.of()));
        Job job = FsmTest.job("web", 50);
        apply(2, new Command.JobRegister(job, Evaluation.forJob("e", job, "job-register", 0), false, 0));
        apply(3, new Command.PlanApply("e", job(), List.of(), List.of(alloc("a1", "d1", true),
                alloc("a2", "d1", false)), T0, deployment("d1", job(), 2, 1), List.of()));
    }

    @Test
    void aPlanCreatesTheDeploymentAndCountsItsPlacementsAndCanaries() throws Exception {
        placeUnderDeployment();
        Deployment d = stored("d1");
        assertEquals(3, d.createIndex());
        assertEquals(T0, d.createTime());
        DeploymentState s = d.taskGroups().get("web");
        assertEquals(2, s.placedAllocs());
        assertEquals(List.of("a1"), s.placedCanaries());
        assertEquals(Instant.ofEpochSecond(0, T0).plus(Duration.ofMinutes(10)), s.requireProgressBy());
        assertEquals(1, store.snapshot().byIndex(NomadTables.DEPLOYMENTS, "job", "default\0web").count());
        assertTrue(store.snapshot().get(NomadTables.ALLOCS, "a1").orElseThrow().deploymentStatus().canary());
    }

    @Test
    void theClientsHealthIsTakenOnceAndCountedOnce() throws Exception {
        placeUnderDeployment();
        Instant healthyAt = Instant.ofEpochSecond(0, T0).plusSeconds(30);
        Allocation report = alloc("a1", null, false).toBuilder().clientStatus("running")
                .deploymentStatus(new AllocDeploymentStatus(true, healthyAt, false, 0)).build();
        apply(4, new Command.AllocClientUpdate(List.of(new Command.NodeAllocs("n", List.of(report))), T0, List.of()));
        apply(5, new Command.AllocClientUpdate(List.of(new Command.NodeAllocs("n", List.of(report.toBuilder()
                .deploymentStatus(new AllocDeploymentStatus(false, healthyAt, false, 0)).build()))), T0, List.of()));
        Allocation a1 = store.snapshot().get(NomadTables.ALLOCS, "a1").orElseThrow();
        assertEquals(new AllocDeploymentStatus(true, healthyAt, true, 4), a1.deploymentStatus(),
                "health and time from the client, Canary kept from the server, set once");
        DeploymentState s = stored("d1").taskGroups().get("web");
        assertEquals(1, s.healthyAllocs());
        assertEquals(0, s.unhealthyAllocs());
        assertEquals(healthyAt.plus(Duration.ofMinutes(10)), s.requireProgressBy(), "progress pushed on health");
    }

    @Test
    void theNodeEndpointPassesTheReportedHealthAndNothingElseOfTheDeploymentStatus() throws Exception {
        Instant at = Instant.ofEpochSecond(0, T0);
        Allocation sent = alloc("a1", "d1", true).toBuilder()
                .deploymentStatus(new AllocDeploymentStatus(true, at, true, 99)).build();
        assertEquals(new AllocDeploymentStatus(true, at, false, 0),
                NodeEndpoints.clientViews(List.of(sent)).get(0).deploymentStatus());
        assertEquals(null, NodeEndpoints.clientViews(List.of(alloc("a1", "d1", true))).get(0).deploymentStatus(),
                "no health reported: nothing");
    }

    @Test
    void aSplitPlanCarriesItsDeploymentInTheFirstPart() throws Exception {
        Job job = FsmTest.job("web", 50).withVersion(0).withIndexes(2, 2, 2);
        Command.PlanApply plan = new Command.PlanApply("e", job, List.of(), List.of(alloc("a1", "d1", true),
                alloc("a2", "d1", false), alloc("a3", "d1", false)), T0, deployment("d1", job, 3, 1),
                List.of(new DeploymentStatusUpdate("d0", Deployment.STATUS_CANCELLED, "x")));
        List<Command.PlanApply> parts = plan.split(3);
        assertEquals(3, parts.size());
        assertEquals("d1", parts.get(0).deployment().id());
        assertEquals(1, parts.get(0).deploymentUpdates().size());
        assertEquals(null, parts.get(1).deployment());
        assertEquals(List.of(), parts.get(2).deploymentUpdates());
    }

    @Test
    void anOperatorSetsHealthAndPromotesOnlyHealthyCanaries() throws Exception {
        placeUnderDeployment();
        Command.Result early = apply(4, new Command.DeploymentPromotion("d1", true, List.of(), eval("p1"), T0));
        assertEquals(400, early.errorCode());
        assertEquals("Task group \"web\" has 0/1 healthy allocations", early.error());

        assertEquals(0, apply(5, new Command.DeploymentAllocHealth("d1", List.of("a1"), List.of("a2"), eval("h1"),
                T0)).errorCode());
        DeploymentState s = stored("d1").taskGroups().get("web");
        assertEquals(1, s.healthyAllocs());
        assertEquals(1, s.unhealthyAllocs());
        assertEquals(0, apply(6, new Command.DeploymentAllocHealth("d1", List.of("a2"), List.of(), eval("h2"), T0))
                .errorCode());
        assertEquals(2, stored("d1").taskGroups().get("web").healthyAllocs(), "unhealthy moved to healthy");
        assertEquals(0, stored("d1").taskGroups().get("web").unhealthyAllocs());
        assertEquals(Evaluation.TRIGGER_DEPLOYMENT_WATCHER, store.snapshot().get(NomadTables.EVALS, "h2")
                .orElseThrow().triggeredBy());

        assertEquals(0, apply(7, new Command.DeploymentPromotion("d1", true, List.of(), eval("p2"), T0))
                .errorCode());
        assertTrue(stored("d1").taskGroups().get("web").promoted());
        assertEquals(400, apply(8, new Command.DeploymentPromotion("d1", true, List.of(), eval("p3"), T0))
                .errorCode(), "nothing left to promote");
    }

    @Test
    void successMarksTheJobVersionStableAndATerminalDeploymentRefusesChanges() throws Exception {
        placeUnderDeployment();
        assertFalse(Boolean.TRUE.equals(job().stable()));
        apply(4, new Command.DeploymentStatusChange("d1", Deployment.STATUS_SUCCESSFUL,
                DeploymentApply.DESCRIPTION_SUCCESSFUL, null, null, T0));
        assertEquals(Deployment.STATUS_SUCCESSFUL, stored("d1").status());
        assertTrue(job().stable());
        assertTrue(store.snapshot().get(NomadTables.JOB_VERSIONS, "default\0web\0" + String.format("%020d", 0))
                .orElseThrow().stable());
        assertEquals(400, apply(5, new Command.DeploymentStatusChange("d1", Deployment.STATUS_FAILED, "x", null,
                null, T0)).errorCode());
        assertEquals(404, apply(6, new Command.DeploymentStatusChange("nope", Deployment.STATUS_FAILED, "x", null,
                null, T0)).errorCode());
    }

    @Test
    void aPlanCancelsAnActiveDeploymentAndAFailureCanRevertTheJob() throws Exception {
        placeUnderDeployment();
        apply(4, new Command.PlanApply("e2", job(), List.of(), List.of(), T0, null,
                List.of(new DeploymentStatusUpdate("d1", Deployment.STATUS_CANCELLED, "Cancelled due to newer version of job"))));
        assertEquals(Deployment.STATUS_CANCELLED, stored("d1").status());

        apply(5, new Command.PlanApply("e3", job(), List.of(), List.of(), T0, deployment("d2", job(), 1, 0),
                List.of()));
        Job older = FsmTest.job("web", 70);
        Evaluation revertEval = eval("r1").toBuilder().deploymentId("d2").build();
        Command.Result r = apply(6, new Command.DeploymentStatusChange("d2", Deployment.STATUS_FAILED,
                "Failed due to unhealthy allocations - rolling back to job version 0", revertEval, older, T0));
        assertEquals(0, r.errorCode());
        assertEquals(6, r.jobModifyIndex());
        assertEquals(1L, job().version(), "the old spec registered as a new version");
        assertEquals(70, job().priority());
        assertEquals(Evaluation.STATUS_PENDING, store.snapshot().get(NomadTables.EVALS, "r1").orElseThrow().status());
    }

    @Test
    void purgingTheJobDeletesItsDeployments() throws Exception {
        placeUnderDeployment();
        apply(4, new Command.JobDeregister("default", "web", false, eval("s1")));
        assertTrue(store.snapshot().get(NomadTables.DEPLOYMENTS, "d1").isPresent(), "a stop keeps them");
        apply(5, new Command.JobDeregister("default", "web", true, eval("s2")));
        assertEquals(0, store.snapshot().count(NomadTables.DEPLOYMENTS));
    }

    @Test
    void stabilityNamesAStoredVersion() throws Exception {
        placeUnderDeployment();
        assertEquals(0, apply(4, new Command.JobStability("default", "web", 0, true)).errorCode());
        assertTrue(job().stable());
        assertEquals(404, apply(5, new Command.JobStability("default", "web", 9, true)).errorCode());
    }

    @Test
    void resumingAPausedDeploymentGivesItAWholeProgressDeadlineAgain() throws Exception {
        placeUnderDeployment();
        long later = T0 + Duration.ofMinutes(30).toNanos();
        apply(4, new Command.DeploymentStatusChange("d1", Deployment.STATUS_PAUSED, "Deployment is paused", null,
                null, T0 + 1));
        assertEquals(Instant.ofEpochSecond(0, T0).plus(Duration.ofMinutes(10)),
                stored("d1").taskGroups().get("web").requireProgressBy(), "pausing keeps the deadline");
        apply(5, new Command.DeploymentStatusChange("d1", Deployment.STATUS_RUNNING, DeploymentApply.DESCRIPTION_RUNNING,
                eval("r1"), null, later));
        assertEquals(Deployment.STATUS_RUNNING, stored("d1").status());
        assertEquals(Instant.ofEpochSecond(0, later).plus(Duration.ofMinutes(10)),
                stored("d1").taskGroups().get("web").requireProgressBy(), "resumed: now + progress_deadline");
    }

    @Test
    void anActiveDeploymentKeepsItsJobRunningAsInNomad() throws Exception {
        placeUnderDeployment();
        // Both allocations stop (say, lost): with the deployment still active the job is running, not dead.
        for (String id : List.of("a1", "a2")) {
            Allocation a = store.snapshot().get(NomadTables.ALLOCS, id).orElseThrow();
            apply(id.equals("a1") ? 4 : 5, new Command.PlanApply("e", job(), List.of(a.toBuilder()
                    .desiredStatus("stop").clientStatus("complete").build()), List.of(), T0, null, List.of()));
        }
        assertTrue(store.snapshot().get(NomadTables.ALLOCS, "a1").orElseThrow().terminal());
        assertEquals(Job.STATUS_RUNNING, JobStatus.status(job(), store.snapshot(), "default\0web"));
        apply(7, new Command.DeploymentStatusChange("d1", Deployment.STATUS_FAILED, "x", null, null, T0));
        assertEquals(Job.STATUS_PENDING, JobStatus.status(job(), store.snapshot(), "default\0web"),
                "no live allocation, no active deployment: the register's pending evaluation decides");
    }
}
