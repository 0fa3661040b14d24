package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.annotation.Annotation;
import java.util.List;
import java.util.Map;

import io.caravan.api.acl.AclRule;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.http.ApiEndpoint;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@code /v1/system/gc} and {@code /v1/system/reconcile/summaries}: management only, on the leader, effective. */
class SystemRoutesTest {
    private final RoutesHarness h = new RoutesHarness();

    SystemRoutesTest() {
        h.add(new SystemRoutes(h.state, h.raft, config()));
    }

    @AfterEach
    void stop() {
        h.close();
    }

    static CoreGc.Config config() {
        return new CoreGc.Config() {
            public Class<? extends Annotation> annotationType() { return CoreGc.Config.class; }
            public String job_gc_interval() { return "5m"; }
            public String job_gc_threshold() { return "4h"; }
            public String eval_gc_threshold() { return "1h"; }
            public String batch_eval_gc_threshold() { return "24h"; }
            public String deployment_gc_threshold() { return "1h"; }
            public String node_gc_threshold() { return "24h"; }
            public int job_tracked_versions() { return 0; }
        };
    }

    @Test
    void bothAreManagementOnlyAndServedByTheLeader() {
        for (String path : List.of("/v1/system/gc", "/v1/system/reconcile/summaries")) {
            ApiEndpoint e = h.endpoint("PUT", path);
            assertEquals(AclRule.MANAGEMENT, e.rule(), path);
            assertEquals(ApiEndpoint.Routing.LEADER, e.routing(), path);
        }
    }

    @Test
    void aForcedGcRemovesAJobThatJustFinished() throws Exception {
        h.raft.submitAndWait(new Command.NodeRegister(NodeLifecycleTest.node("n", "ready"), List.of()));
        Job job = FsmTest.job("b", 50).toBuilder().type(Job.TYPE_BATCH).build();
        h.raft.submitAndWait(new Command.JobRegister(job, null, false, 0));
        job = h.snapshot().get(NomadTables.JOBS, "default\0b").orElseThrow();
        long now = System.currentTimeMillis() * 1_000_000L;
        h.raft.submitAndWait(new Command.EvalUpsert(List.of(Evaluation.forJob("e", job,
                Evaluation.TRIGGER_JOB_REGISTER, now).toBuilder().status(Evaluation.STATUS_COMPLETE).build())));
        Allocation a = DeploymentApplyTest.alloc("a", null, false).toBuilder().jobId("b").build();
        h.raft.submitAndWait(new Command.PlanApply("e", job, List.of(), List.of(a), now));
        h.raft.submitAndWait(new Command.AllocClientUpdate(List.of(new Command.NodeAllocs("n", List.of(
                a.toBuilder().clientStatus(Allocation.CLIENT_COMPLETE).build()))), now, List.of()));

        h.call("PUT", "/v1/system/gc", Map.of(), null);
        assertTrue(h.snapshot().get(NomadTables.JOBS, "default\0b").isEmpty());
        assertEquals(0, h.snapshot().count(NomadTables.EVALS));
        assertEquals(0, h.snapshot().count(NomadTables.ALLOCS));
        h.call("PUT", "/v1/system/reconcile/summaries", Map.of(), null);
    }
}
