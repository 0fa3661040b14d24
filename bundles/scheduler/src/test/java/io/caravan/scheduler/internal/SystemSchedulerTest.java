package io.caravan.scheduler.internal;

import static io.caravan.scheduler.testing.TestAllocs.running;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.api.model.Node;
import io.caravan.scheduler.SchedulerException;
import io.caravan.scheduler.internal.reconcile.AllocStop;
import io.caravan.scheduler.testing.Harness;
import io.caravan.scheduler.testing.TestAllocs;
import io.caravan.scheduler.testing.TestJobs;
import io.caravan.scheduler.testing.TestNodes;

class SystemSchedulerTest {
    private final Harness h = new Harness();

    private static Job system(String type) {
        return TestJobs.job("agent").type(type).group(TestJobs.group("web", 1).build()).build();
    }

    private Set<String> placedNodes() {
        return h.planner.placedAllocs().stream().map(Allocation::nodeId).collect(Collectors.toSet());
    }

    @Test
    void oneAllocPerReadyNodeNoneOnIneligibleOrDown() throws SchedulerException {
        h.state.node(TestNodes.node("n1").build()).node(TestNodes.node("n2").build())
                .node(TestNodes.node("n3").build()).node(TestNodes.node("n4").ineligible().build())
                .node(TestNodes.node("n5").status(Node.STATUS_DOWN).build())
                .node(TestNodes.node("n6").draining().build())
                .node(TestNodes.node("n7").dc("elsewhere").build());
        Job job = system(Job.TYPE_SYSTEM);
        h.state.job(job);
        h.process(job, Evaluation.TRIGGER_JOB_REGISTER);
        assertEquals(Set.of("n1", "n2", "n3"), placedNodes());
        h.planner.placedAllocs().forEach(a -> assertEquals("agent.web[0]", a.name()));
        Evaluation done = h.planner.lastUpdate();
        assertEquals(Evaluation.STATUS_COMPLETE, done.status());
        assertEquals(Map.of("web", 0), done.queuedAllocations());
        assertTrue(h.planner.created.isEmpty());
    }

    @Test
    void constraintMismatchIsNotAFailure() throws SchedulerException {
        h.state.node(TestNodes.node("n1").build()).node(TestNodes.node("n2").attr("kernel.name", "darwin").build());
        Job job = TestJobs.job("agent").type(Job.TYPE_SYSTEM).constraint("${attr.kernel.name}", "=", "linux")
                .group(TestJobs.group("web", 1).build()).build();
        h.state.job(job);
        h.process(job, Evaluation.TRIGGER_JOB_REGISTER);
        assertEquals(Set.of("n1"), placedNodes());
        assertTrue(h.planner.lastUpdate().failedTgAllocs().isEmpty());
        assertEquals(Map.of("web", 0), h.planner.lastUpdate().queuedAllocations());
    }

    @Test
    void fullNodeIsAFailureButNotBlocked() throws SchedulerException {
        h.state.node(TestNodes.node("n1").build()).node(TestNodes.node("n2").resources(100, 8192).build())
                .node(TestNodes.node("n3").resources(100, 8192).build());
        Job job = system(Job.TYPE_SYSTEM);
        h.state.job(job);
        h.process(job, Evaluation.TRIGGER_JOB_REGISTER);
        assertEquals(Set.of("n1"), placedNodes());
        var failed = h.planner.lastUpdate().failedTgAllocs().get("web");
        assertEquals(1, failed.dimensionExhausted().get("cpu"));
        assertEquals(1, failed.coalescedFailures());
        assertTrue(h.planner.created.isEmpty(), "no blocked eval for system jobs");
    }

    @Test
    void newNodeGetsAnAllocExistingOnesAreLeftAlone() throws SchedulerException {
        h.state.node(TestNodes.node("n1").build());
        Job job = system(Job.TYPE_SYSTEM);
        h.state.job(job);
        h.process(job, Evaluation.TRIGGER_JOB_REGISTER);
        h.state.node(TestNodes.node("n2").build());
        h.process(job, Evaluation.TRIGGER_NODE_UPDATE);
        assertEquals(2, h.planner.plans.size());
        assertEquals(Set.of("n2"), h.planner.lastPlan().nodeAllocation().keySet());
    }

    @Test
    void downNodeAllocIsLostNotReplaced() throws SchedulerException {
        h.state.node(TestNodes.node("n1").build()).node(TestNodes.node("n2").status(Node.STATUS_DOWN).build());
        Job job = system(Job.TYPE_SYSTEM);
        h.state.job(job);
        h.state.alloc(running(job, "a1", 0, "n1")).alloc(running(job, "a2", 0, "n2"));
        h.process(job, Evaluation.TRIGGER_NODE_UPDATE);
        Allocation lost = h.planner.lastPlan().nodeUpdate().get("n2").get(0);
        assertEquals(Allocation.CLIENT_LOST, lost.clientStatus());
        assertEquals(AllocStop.LOST, lost.desiredDescription());
        assertTrue(h.planner.lastPlan().nodeAllocation().isEmpty());
    }

    @Test
    void ineligibleNodeKeepsItsRunningAlloc() throws SchedulerException {
        h.state.node(TestNodes.node("n1").ineligible().build());
        Job job = system(Job.TYPE_SYSTEM);
        h.state.job(job);
        h.state.alloc(running(job, "a1", 0, "n1"));
        h.process(job, Evaluation.TRIGGER_NODE_UPDATE);
        assertTrue(h.planner.plans.isEmpty());
    }

    @Test
    void sysbatchDoesNotRerunFinishedWork() throws SchedulerException {
        h.state.node(TestNodes.node("n1").build()).node(TestNodes.node("n2").build());
        Job job = system(Job.TYPE_SYSBATCH);
        h.state.job(job);
        h.state.alloc(TestAllocs.complete(job, "c1", 0, "n1"));
        h.process(job, Evaluation.TRIGGER_JOB_REGISTER);
        assertEquals(Set.of("n2"), placedNodes());
    }

    @Test
    void stoppedSystemJobStopsAll() throws SchedulerException {
        h.state.node(TestNodes.node("n1").build());
        Job job = system(Job.TYPE_SYSTEM);
        h.state.job(job.withStop(true));
        h.state.alloc(running(job, "a1", 0, "n1"));
        h.process(job, Evaluation.TRIGGER_JOB_DEREGISTER);
        List<Allocation> stops = h.planner.lastPlan().nodeUpdate().get("n1");
        assertEquals(Allocation.DESIRED_STOP, stops.get(0).desiredStatus());
    }
}
