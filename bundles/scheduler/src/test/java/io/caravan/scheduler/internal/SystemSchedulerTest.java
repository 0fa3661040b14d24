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

    /** A node nearly full with a job of the given priority (3,800 of 4,000 MHz). */
    private Job fillNode(String nodeId, int priority) {
        Job low = new TestJobs.Shim(TestJobs.job("batchy").group(TestJobs.group("work", 1)
                .task(TestJobs.task("t", "raw_exec", 3800, 256)).build()).build()).priority(priority);
        h.state.job(low);
        Allocation a = TestAllocs.alloc(low, "low-" + nodeId, "work", 0, nodeId, Allocation.DESIRED_RUN,
                Allocation.CLIENT_RUNNING, null, null, null, 0);
        h.state.alloc(withCpu(a, 3800));
        return low;
    }

    private static Allocation withCpu(Allocation a, long cpu) {
        var r = new io.caravan.api.model.AllocatedResources(Map.of("t",
                new io.caravan.api.model.AllocatedResources.TaskResources(
                        new io.caravan.api.model.AllocatedResources.Cpu(cpu, null),
                        new io.caravan.api.model.AllocatedResources.Memory(256, 0), null, null)),
                null, new io.caravan.api.model.AllocatedResources.Shared(null, 300, null));
        return new Allocation(a.id(), a.namespace(), a.evalId(), a.name(), a.nodeId(), a.nodeName(), a.jobId(),
                a.job(), a.taskGroup(), r, null, a.desiredStatus(), "", null, a.clientStatus(), "", null, null, "",
                "", "", null, null, null, "", null, "", "", 10, 10, 10, 0, 0);
    }

    @Test
    void systemJobPreemptsMuchLowerPriorityWork() throws SchedulerException {
        h.state.node(TestNodes.node("n1").build());
        fillNode("n1", 20);
        Job job = system(Job.TYPE_SYSTEM);
        h.state.job(job);
        h.process(job, Evaluation.TRIGGER_JOB_REGISTER);
        Allocation placed = h.planner.lastPlan().nodeAllocation().get("n1").get(0);
        Allocation evicted = h.planner.lastPlan().nodeUpdate().get("n1").get(0);
        assertEquals("low-n1", evicted.id());
        assertEquals(Allocation.DESIRED_EVICT, evicted.desiredStatus());
        assertEquals("Preempted by alloc ID " + placed.id(), evicted.desiredDescription());
        assertEquals(placed.id(), evicted.preemptedByAllocation());
        assertEquals(List.of("low-n1"), placed.preemptedAllocations());
        assertTrue(h.planner.lastUpdate().failedTgAllocs().isEmpty());
    }

    @Test
    void noPreemptionWithinTenPriorityPoints() throws SchedulerException {
        h.state.node(TestNodes.node("n1").build());
        fillNode("n1", 45);
        Job job = system(Job.TYPE_SYSTEM);
        h.state.job(job);
        h.process(job, Evaluation.TRIGGER_JOB_REGISTER);
        assertTrue(h.planner.plans.isEmpty());
        assertEquals(1, h.planner.lastUpdate().failedTgAllocs().get("web").dimensionExhausted().get("cpu"));
    }

    @Test
    void sysbatchDoesNotPreemptByDefault() throws SchedulerException {
        h.state.node(TestNodes.node("n1").build());
        fillNode("n1", 20);
        Job job = system(Job.TYPE_SYSBATCH);
        h.state.job(job);
        h.process(job, Evaluation.TRIGGER_JOB_REGISTER);
        assertTrue(h.planner.plans.isEmpty());
    }
}
