package io.caravan.scheduler.internal;

import static io.caravan.scheduler.testing.TestAllocs.running;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.Deployment;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.api.model.Resources;
import io.caravan.api.model.TaskGroup;
import io.caravan.api.model.UpdateStrategy;
import io.caravan.scheduler.Plan;
import io.caravan.scheduler.SchedulerException;
import io.caravan.scheduler.testing.Harness;
import io.caravan.scheduler.testing.TestJobs;
import io.caravan.scheduler.testing.TestNodes;

/** The reconciler's deployment decisions reach the plan: a new deployment, and placements that join it. */
class DeploymentSchedulingTest {
    private final Harness h = new Harness();

    private static Job job(long version) {
        TaskGroup g = TestJobs.group("web", 3).task(TestJobs.task("server", "raw_exec", new Resources(100, null, 64,
                null, null, null, null, null, null, null), Map.of("command", "/bin/v" + version), List.of())).build();
        return TestJobs.job("app").version(version).group(g.toBuilder().update(new UpdateStrategy(null, 1, null,
                null, null, Duration.ofMinutes(10), 1, false, false)).build()).build();
    }

    @Test
    void aDestructiveUpdatePlansACanaryUnderANewDeploymentAndTheEvalNamesIt() throws SchedulerException {
        for (int i = 1; i <= 3; i++) {
            h.state.node(TestNodes.node("n" + i).build());
        }
        Job v0 = job(0);
        for (int i = 0; i < 3; i++) {
            h.state.alloc(running(v0, "o" + i, i, "n" + (i + 1)));
        }
        Job v1 = job(1);
        h.state.job(v1);
        Evaluation eval = h.process(v1, Evaluation.TRIGGER_JOB_REGISTER);

        Plan plan = h.planner.plans.get(0);
        Deployment d = plan.deployment();
        assertNotNull(d);
        assertEquals(1, d.taskGroups().get("web").desiredCanaries());
        assertTrue(plan.nodeUpdate().isEmpty(), "the old allocations are held");
        List<Allocation> placed = h.planner.placedAllocs();
        assertEquals(1, placed.size());
        assertEquals(d.id(), placed.get(0).deploymentId());
        assertTrue(placed.get(0).deploymentStatus().canary());
        assertNull(placed.get(0).deploymentStatus().healthy());
        assertEquals(d.id(), h.planner.updated.get(h.planner.updated.size() - 1).deploymentId());
        assertEquals(Evaluation.STATUS_COMPLETE, h.planner.updated.get(h.planner.updated.size() - 1).status());
        assertEquals(eval.id(), placed.get(0).evalId());
    }

    @Test
    void aJobWithoutAnUpdateBlockPlansNoDeployment() throws SchedulerException {
        h.state.node(TestNodes.node("n1").build());
        Job job = TestJobs.job("app").group(TestJobs.group("web", 2).build()).build();
        h.state.job(job);
        h.process(job, Evaluation.TRIGGER_JOB_REGISTER);
        assertNull(h.planner.plans.get(0).deployment());
        assertTrue(h.planner.placedAllocs().stream().allMatch(a -> a.deploymentId() == null
                || a.deploymentId().isEmpty()));
    }
}
