package io.caravan.scheduler.internal;

import static io.caravan.scheduler.testing.TestAllocs.running;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import io.caravan.api.model.AllocMetric;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.api.model.Node;
import io.caravan.api.model.Port;
import io.caravan.api.model.ReschedulePolicy;
import io.caravan.scheduler.Plan;
import io.caravan.scheduler.SchedulerConfiguration;
import io.caravan.scheduler.SchedulerException;
import io.caravan.scheduler.SchedulerState;
import io.caravan.scheduler.internal.placement.PlacementPipeline;
import io.caravan.scheduler.internal.reconcile.AllocStop;
import io.caravan.scheduler.testing.Harness;
import io.caravan.scheduler.testing.TestAllocs;
import io.caravan.scheduler.testing.TestJobs;
import io.caravan.scheduler.testing.TestNodes;

class GenericSchedulerTest {
    private final Harness h = new Harness();

    private void nodes(int n) {
        for (int i = 1; i <= n; i++) {
            h.state.node(TestNodes.node("n" + i).build());
        }
    }

    private static Job web(int count) {
        return TestJobs.job("app").group(TestJobs.group("web", count).build()).build();
    }

    @Test
    void serviceJobOfThreeLandsOnThreeNodes() throws SchedulerException {
        nodes(3);
        Job job = web(3);
        h.state.job(job);
        Evaluation eval = h.process(job, Evaluation.TRIGGER_JOB_REGISTER);

        List<Allocation> placed = h.planner.placedAllocs();
        assertEquals(3, placed.size());
        assertEquals(Set.of("app.web[0]", "app.web[1]", "app.web[2]"),
                placed.stream().map(Allocation::name).collect(Collectors.toSet()));
        assertEquals(3, placed.stream().map(Allocation::nodeId).distinct().count(), "anti-affinity spreads them");
        Allocation a = placed.get(0);
        assertEquals(eval.id(), a.evalId());
        assertEquals(Job.DEFAULT_NAMESPACE, a.namespace());
        assertEquals("app", a.jobId());
        assertEquals(job, a.job());
        assertEquals("web", a.taskGroup());
        assertEquals(a.nodeId(), a.nodeName());
        assertEquals(Allocation.DESIRED_RUN, a.desiredStatus());
        assertEquals(Allocation.CLIENT_PENDING, a.clientStatus());
        assertEquals(Harness.NOW_NANOS, a.createTime());
        assertEquals(Harness.NOW_NANOS, a.modifyTime());
        assertEquals(500, a.allocatedResources().tasks().get("server").cpu().cpuShares());
        assertEquals(256, a.allocatedResources().tasks().get("server").memory().memoryMb());
        assertEquals(300, a.allocatedResources().shared().diskMb());
        assertNotNull(a.metrics());
        assertTrue(a.metrics().nodesEvaluated() >= 1);
        assertFalse(a.metrics().scoreMetaData().isEmpty());
        assertTrue(a.metrics().scoreMetaData().get(0).scores().containsKey("binpack"));

        Evaluation done = h.planner.lastUpdate();
        assertEquals(Evaluation.STATUS_COMPLETE, done.status());
        assertEquals(Map.of("web", 0), done.queuedAllocations());
        assertTrue(done.failedTgAllocs().isEmpty());
        assertTrue(h.planner.created.isEmpty());
    }

    @Test
    void unmetConstraintFailsWithReasonAndBlocks() throws SchedulerException {
        nodes(3);
        Job job = TestJobs.job("app").constraint("${attr.kernel.name}", "=", "windows")
                .group(TestJobs.group("web", 3).build()).build();
        h.state.job(job);
        Evaluation eval = h.process(job, Evaluation.TRIGGER_JOB_REGISTER);

        assertTrue(h.planner.plans.isEmpty(), "nothing to submit");
        Evaluation done = h.planner.lastUpdate();
        assertEquals(Evaluation.STATUS_COMPLETE, done.status());
        AllocMetric metric = done.failedTgAllocs().get("web");
        assertEquals(3, metric.nodesEvaluated());
        assertEquals(3, metric.nodesFiltered());
        assertEquals(1, metric.constraintFiltered().get("${attr.kernel.name} = windows"));
        assertEquals(2, metric.constraintFiltered().get("computed class ineligible"));
        assertEquals(2, metric.coalescedFailures());
        assertEquals(Map.of("dc1", 3), metric.nodesAvailable());
        assertEquals(Map.of("web", 3), done.queuedAllocations());

        Evaluation blocked = h.planner.created.get(0);
        assertEquals(Evaluation.STATUS_BLOCKED, blocked.status());
        assertEquals(Evaluation.TRIGGER_QUEUED_ALLOCS, blocked.triggeredBy());
        assertEquals(eval.id(), blocked.previousEval());
        assertEquals(blocked.id(), done.blockedEval());
        assertEquals(1, blocked.classEligibility().size());
        assertEquals(false, blocked.classEligibility().values().iterator().next());
        assertFalse(blocked.escapedComputedClass());
    }

    @Test
    void uniqueConstraintEscapesClassCaching() throws SchedulerException {
        nodes(3);
        Job job = TestJobs.job("app").group(TestJobs.group("web", 1)
                .constraint("${node.unique.name}", "=", "n2").build()).build();
        h.state.job(job);
        h.process(job, Evaluation.TRIGGER_JOB_REGISTER);
        assertEquals("n2", h.planner.placedAllocs().get(0).nodeId());
    }

    @Test
    void stoppedJobStopsEverything() throws SchedulerException {
        nodes(2);
        Job job = web(2);
        h.state.job(job.withStop(true));
        h.state.alloc(running(job, "a0", 0, "n1")).alloc(running(job, "a1", 1, "n2"));
        h.process(job, Evaluation.TRIGGER_JOB_DEREGISTER);

        Plan plan = h.planner.lastPlan();
        List<Allocation> stops = plan.nodeUpdate().values().stream().flatMap(List::stream).collect(Collectors.toList());
        assertEquals(2, stops.size());
        stops.forEach(a -> {
            assertEquals(Allocation.DESIRED_STOP, a.desiredStatus());
            assertEquals(AllocStop.NOT_NEEDED, a.desiredDescription());
        });
        assertTrue(plan.nodeAllocation().isEmpty());
    }

    @Test
    void countDownAndUp() throws SchedulerException {
        nodes(3);
        Job job = web(3);
        h.state.job(job);
        h.process(job, Evaluation.TRIGGER_JOB_REGISTER);
        Job smaller = TestJobs.job("app").version(1).group(TestJobs.group("web", 1).build()).build();
        h.state.job(smaller);
        h.process(smaller, Evaluation.TRIGGER_JOB_REGISTER);
        Plan down = h.planner.lastPlan();
        assertEquals(Set.of("app.web[1]", "app.web[2]"), down.nodeUpdate().values().stream().flatMap(List::stream)
                .map(Allocation::name).collect(Collectors.toSet()));
        // The survivor takes the new version in place (only the count changed).
        assertEquals(1, down.nodeAllocation().values().stream().mapToInt(List::size).sum());

        Job bigger = TestJobs.job("app").version(2).group(TestJobs.group("web", 4).build()).build();
        h.state.job(bigger);
        h.process(bigger, Evaluation.TRIGGER_JOB_REGISTER);
        long live = h.state.allAllocs().stream().filter(a -> !a.terminal()).count();
        assertEquals(4, live);
        assertEquals(Set.of("app.web[0]", "app.web[1]", "app.web[2]", "app.web[3]"), h.state.allAllocs().stream()
                .filter(a -> !a.terminal()).map(Allocation::name).collect(Collectors.toSet()));
    }

    @Test
    void downNodeAllocIsLostAndReplaced() throws SchedulerException {
        nodes(3);
        Job job = web(2);
        h.state.job(job);
        h.state.alloc(running(job, "a0", 0, "n1")).alloc(running(job, "a1", 1, "n2"));
        h.state.node(TestNodes.node("n2").status(Node.STATUS_DOWN).build());
        h.process(job, Evaluation.TRIGGER_NODE_UPDATE);

        Plan plan = h.planner.lastPlan();
        Allocation lost = plan.nodeUpdate().get("n2").get(0);
        assertEquals("a1", lost.id());
        assertEquals(Allocation.CLIENT_LOST, lost.clientStatus());
        assertEquals(Allocation.DESIRED_STOP, lost.desiredStatus());
        assertEquals(AllocStop.LOST, lost.desiredDescription());
        Allocation replacement = h.planner.placedAllocs().stream().filter(a -> !a.id().equals("a1")).findFirst()
                .orElseThrow();
        assertEquals("app.web[1]", replacement.name());
        assertEquals("a1", replacement.previousAllocation());
        assertNotEquals("n2", replacement.nodeId());
        assertEquals(replacement.id(), lost.nextAllocation());
    }

    @Test
    void failedAllocIsRescheduledNowOnAnotherNode() throws SchedulerException {
        nodes(3);
        Job job = TestJobs.job("app").group(TestJobs.group("web", 1).reschedule(TestJobs.reschedule(0,
                Duration.ZERO, Duration.ofSeconds(5), ReschedulePolicy.DELAY_EXPONENTIAL, Duration.ofMinutes(5),
                true)).build()).build();
        h.state.job(job);
        h.state.alloc(TestAllocs.failed(job, "f0", 0, "n1", Harness.NOW.minusSeconds(30), null));
        h.process(job, Evaluation.TRIGGER_RETRY_FAILED_ALLOC);

        Plan plan = h.planner.lastPlan();
        Allocation replacement = plan.nodeAllocation().values().stream().flatMap(List::stream)
                .filter(a -> !a.id().equals("f0")).findFirst().orElseThrow();
        assertEquals("f0", replacement.previousAllocation());
        assertNotEquals("n1", replacement.nodeId(), "the reschedule penalty avoids the failed node");
        assertEquals(1, replacement.rescheduleTracker().events().size());
        assertEquals("f0", replacement.rescheduleTracker().events().get(0).prevAllocId());
        assertEquals("n1", replacement.rescheduleTracker().events().get(0).prevNodeId());
        assertEquals(Duration.ofSeconds(5), replacement.rescheduleTracker().events().get(0).delay());
        Allocation old = plan.nodeUpdate().get("n1").get(0);
        assertEquals(AllocStop.RESCHEDULED, old.desiredDescription());
        assertEquals(replacement.id(), old.nextAllocation());
    }

    @Test
    void failedAllocIsRescheduledLaterThroughAFollowUpEval() throws SchedulerException {
        nodes(2);
        Job job = TestJobs.job("app").group(TestJobs.group("web", 1).reschedule(TestJobs.reschedule(0,
                Duration.ZERO, Duration.ofMinutes(1), ReschedulePolicy.DELAY_CONSTANT, null, true)).build()).build();
        h.state.job(job);
        h.state.alloc(TestAllocs.failed(job, "f0", 0, "n1", Harness.NOW.minusSeconds(10), null));
        Evaluation eval = h.process(job, Evaluation.TRIGGER_RETRY_FAILED_ALLOC);

        Evaluation followUp = h.planner.created.get(0);
        assertEquals(Evaluation.STATUS_PENDING, followUp.status());
        assertEquals(Evaluation.TRIGGER_RETRY_FAILED_ALLOC, followUp.triggeredBy());
        assertEquals(Harness.NOW.plusSeconds(50), followUp.waitUntil());
        assertEquals(eval.id(), followUp.previousEval());
        Plan plan = h.planner.lastPlan();
        Allocation annotated = plan.nodeAllocation().get("n1").get(0);
        assertEquals("f0", annotated.id());
        assertEquals(followUp.id(), annotated.followupEvalId());
        assertEquals(1, plan.nodeAllocation().size(), "nothing placed yet");

        // When the follow-up eval runs, the allocation is rescheduled even if a little early.
        h.scheduler(job.type()).process(followUp);
        assertTrue(h.planner.placedAllocs().stream().anyMatch(a -> "f0".equals(a.previousAllocation())));
    }

    @Test
    void completedBatchWorkIsNotRerun() throws SchedulerException {
        nodes(2);
        Job job = TestJobs.job("report").type(Job.TYPE_BATCH).group(TestJobs.group("web", 2).build()).build();
        h.state.job(job);
        h.state.alloc(TestAllocs.complete(job, "c0", 0, "n1")).alloc(running(job, "r1", 1, "n2"));
        h.process(job, Evaluation.TRIGGER_JOB_REGISTER);
        assertTrue(h.planner.plans.isEmpty());
        assertEquals(Evaluation.STATUS_COMPLETE, h.planner.lastUpdate().status());
    }

    @Test
    void distinctHostsLeavesTheThirdUnplaced() throws SchedulerException {
        nodes(2);
        Job job = TestJobs.job("app").group(TestJobs.group("web", 3)
                .constraint("", "distinct_hosts", "true").build()).build();
        h.state.job(job);
        h.process(job, Evaluation.TRIGGER_JOB_REGISTER);
        List<Allocation> placed = h.planner.placedAllocs();
        assertEquals(2, placed.size());
        assertEquals(2, placed.stream().map(Allocation::nodeId).distinct().count());
        AllocMetric failed = h.planner.lastUpdate().failedTgAllocs().get("web");
        assertEquals(2, failed.constraintFiltered().get("distinct_hosts"));
        assertEquals(Map.of("web", 1), h.planner.lastUpdate().queuedAllocations());
        assertEquals(1, h.planner.created.size(), "blocked eval");
    }

    @Test
    void spreadOverRacks() throws SchedulerException {
        for (int i = 1; i <= 6; i++) {
            h.state.node(TestNodes.node("n" + i).meta("rack", i <= 3 ? "r1" : "r2").build());
        }
        Job job = TestJobs.job("app").group(TestJobs.group("web", 4).spread("${meta.rack}", 100).build()).build();
        h.state.job(job);
        h.process(job, Evaluation.TRIGGER_JOB_REGISTER);
        Map<String, Integer> perRack = new HashMap<>();
        for (Allocation a : h.planner.placedAllocs()) {
            perRack.merge(h.state.node(a.nodeId()).orElseThrow().meta().get("rack"), 1, Integer::sum);
        }
        assertEquals(Map.of("r1", 2, "r2", 2), perRack);
    }

    @Test
    void spreadTargetsArePercentages() throws SchedulerException {
        for (int i = 1; i <= 8; i++) {
            h.state.node(TestNodes.node("n" + i).dc(i <= 4 ? "east" : "west").build());
        }
        Job job = TestJobs.job("app").datacenters("*").group(TestJobs.group("web", 4)
                .spread("${node.datacenter}", 100, new io.caravan.api.model.Spread.Target("east", 75),
                        new io.caravan.api.model.Spread.Target("west", 25)).build()).build();
        h.state.job(job);
        h.process(job, Evaluation.TRIGGER_JOB_REGISTER);
        Map<String, Integer> perDc = new HashMap<>();
        for (Allocation a : h.planner.placedAllocs()) {
            perDc.merge(h.state.node(a.nodeId()).orElseThrow().datacenter(), 1, Integer::sum);
        }
        assertEquals(Map.of("east", 3, "west", 1), perDc);
    }

    @Test
    void staticPortsDoNotCollide() throws SchedulerException {
        nodes(1);
        Job job = TestJobs.job("app").group(TestJobs.group("web", 2)
                .ports(List.of(new Port("http", 8080, 0, null, false)), List.of()).build()).build();
        h.state.job(job);
        h.process(job, Evaluation.TRIGGER_JOB_REGISTER);
        assertEquals(1, h.planner.placedAllocs().size());
        AllocMetric failed = h.planner.lastUpdate().failedTgAllocs().get("web");
        assertEquals(1, failed.dimensionExhausted().get("network: reserved port collision http=8080"));
        assertEquals(1, failed.nodesExhausted());
    }

    @Test
    void dynamicPortsAreDistinctAndInRange() throws SchedulerException {
        h.state.node(TestNodes.node("n1").dynamicPorts(30000, 30002).reservedPorts("30001").build());
        Job job = TestJobs.job("app").group(TestJobs.group("web", 3)
                .ports(List.of(), List.of(new Port("http", 0, -1, null, false))).build()).build();
        h.state.job(job);
        h.process(job, Evaluation.TRIGGER_JOB_REGISTER);
        List<Allocation> placed = h.planner.placedAllocs();
        assertEquals(2, placed.size(), "ports 30000 and 30002 only");
        Set<Integer> ports = new HashSet<>();
        for (Allocation a : placed) {
            var port = a.allocatedResources().shared().ports().get(0);
            assertEquals(port.value(), port.to(), "to = -1 maps to the host port");
            assertEquals("10.0.0.1", port.hostIp());
            ports.add(port.value());
        }
        assertEquals(Set.of(30000, 30002), ports);
        assertEquals(1, h.planner.lastUpdate().failedTgAllocs().get("web").dimensionExhausted()
                .get("network: dynamic port selection failed"));
    }

    @Test
    void memoryExhaustionIsCounted() throws SchedulerException {
        h.state.node(TestNodes.node("n1").resources(4000, 300).build());
        Job job = web(2);
        h.state.job(job);
        h.process(job, Evaluation.TRIGGER_JOB_REGISTER);
        assertEquals(1, h.planner.placedAllocs().size());
        assertEquals(1, h.planner.lastUpdate().failedTgAllocs().get("web").dimensionExhausted().get("memory"));
    }

    @Test
    void partialRejectionRefreshesAndRetries() throws SchedulerException {
        nodes(3);
        Job job = web(3);
        h.state.job(job);
        h.planner.rejectNodesOnce.addAll(Set.of("n1", "n2", "n3"));
        h.process(job, Evaluation.TRIGGER_JOB_REGISTER);
        assertEquals(1, h.planner.refreshes);
        assertEquals(2, h.planner.plans.size());
        assertEquals(3, h.state.allAllocs().size());
        assertEquals(Evaluation.STATUS_COMPLETE, h.planner.lastUpdate().status());
        assertEquals(Map.of("web", 0), h.planner.lastUpdate().queuedAllocations());
    }

    @Test
    void givesUpAfterMaxAttempts() throws SchedulerException {
        nodes(2);
        Job job = web(1);
        h.state.job(job);
        h.planner.rejectAll = true;
        h.process(job, Evaluation.TRIGGER_JOB_REGISTER);
        assertEquals(5, h.planner.plans.size());
        Evaluation done = h.planner.lastUpdate();
        assertEquals(Evaluation.STATUS_FAILED, done.status());
        assertEquals("maximum attempts reached (5)", done.statusDescription());
        assertEquals(Evaluation.TRIGGER_MAX_PLANS, h.planner.created.get(0).triggeredBy());
    }

    @Test
    void batchGivesUpAfterTwoAttempts() throws SchedulerException {
        nodes(2);
        Job job = TestJobs.job("b").type(Job.TYPE_BATCH).group(TestJobs.group("web", 1).build()).build();
        h.state.job(job);
        h.planner.rejectAll = true;
        h.process(job, Evaluation.TRIGGER_JOB_REGISTER);
        assertEquals(2, h.planner.plans.size());
    }

    @Test
    void anExceptionFailsTheEval() throws SchedulerException {
        nodes(1);
        Job job = web(1);
        h.state.job(job);
        SchedulerState broken = new SchedulerState() {
            public long index() {
                return h.state.index();
            }

            public java.util.Optional<Job> job(String namespace, String jobId) {
                return h.state.job(namespace, jobId);
            }

            public List<Node> nodes() {
                return h.state.nodes();
            }

            public java.util.Optional<Node> node(String nodeId) {
                return h.state.node(nodeId);
            }

            public List<Allocation> allocsByJob(String namespace, String jobId) {
                throw new IllegalStateException("corrupt index");
            }

            public List<Allocation> allocsByNode(String nodeId) {
                return h.state.allocsByNode(nodeId);
            }

            public SchedulerConfiguration configuration() {
                return h.state.configuration();
            }
        };
        Evaluation eval = Evaluation.forJob("e1", job, Evaluation.TRIGGER_JOB_REGISTER, 0);
        new GenericScheduler(false, broken, h.planner, h.clock, h.idSource, PlacementPipeline.standard()).process(eval);
        Evaluation done = h.planner.lastUpdate();
        assertEquals(Evaluation.STATUS_FAILED, done.status());
        assertTrue(done.statusDescription().contains("corrupt index"));
    }

    @Test
    void placementsAreDeterministic() throws SchedulerException {
        Harness other = new Harness();
        for (Harness x : List.of(h, other)) {
            for (int i = 1; i <= 20; i++) {
                x.state.node(TestNodes.node("n" + i).build());
            }
            x.state.job(web(5));
            x.process(web(5), Evaluation.TRIGGER_JOB_REGISTER);
        }
        assertEquals(h.planner.placedAllocs().stream().map(Allocation::nodeId).collect(Collectors.toList()),
                other.planner.placedAllocs().stream().map(Allocation::nodeId).collect(Collectors.toList()));
    }

    @Test
    void purgedJobStopsAllocs() throws SchedulerException {
        nodes(1);
        Job job = web(1);
        h.state.alloc(running(job, "a0", 0, "n1"));
        h.process(job, Evaluation.TRIGGER_JOB_DEREGISTER);
        assertEquals(Allocation.DESIRED_STOP, h.planner.lastPlan().nodeUpdate().get("n1").get(0).desiredStatus());
        assertNull(h.planner.lastPlan().job());
    }

    @Test
    void annotatedPlanCarriesDesiredUpdates() throws SchedulerException {
        nodes(2);
        Job job = web(2);
        h.state.job(job);
        h.state.alloc(running(job, "a0", 0, "n1"));
        Evaluation plain = Evaluation.forJob("plan-1", job, Evaluation.TRIGGER_JOB_REGISTER, 0);
        Evaluation annotated = new Evaluation(plain.id(), plain.namespace(), plain.priority(), plain.type(),
                plain.triggeredBy(), plain.jobId(), 0, "", 0, "", Evaluation.STATUS_PENDING, "", null, null, "", "",
                "", null, null, null, "", false, true, null, "", 0, 0, 0, 0, 0);
        h.scheduler(Job.TYPE_SERVICE).process(annotated);
        var updates = h.planner.lastPlan().annotations().desiredTgUpdates().get("web");
        assertEquals(1, updates.place());
        assertEquals(1, updates.ignore());
    }

    @Test
    void plainPlanHasNoAnnotations() throws SchedulerException {
        nodes(1);
        Job job = web(1);
        h.state.job(job);
        h.process(job, Evaluation.TRIGGER_JOB_REGISTER);
        assertNull(h.planner.lastPlan().annotations());
    }

    @Test
    void inPlaceUpdateThatNoLongerFitsTheNodeIsReplaced() throws SchedulerException {
        h.state.node(TestNodes.node("n1").meta("rack", "r1").build()).node(TestNodes.node("n2").meta("rack", "r2")
                .build());
        Job v0 = web(1);
        h.state.job(v0);
        h.state.alloc(running(v0, "a0", 0, "n1"));
        Job v1 = TestJobs.job("app").version(1).group(TestJobs.group("web", 1)
                .constraint("${meta.rack}", "=", "r2").build()).build();
        h.state.job(v1);
        h.process(v1, Evaluation.TRIGGER_JOB_REGISTER);
        Plan plan = h.planner.lastPlan();
        assertEquals(AllocStop.UPDATING, plan.nodeUpdate().get("n1").get(0).desiredDescription());
        Allocation replacement = plan.nodeAllocation().get("n2").get(0);
        assertEquals("app.web[0]", replacement.name());
        assertEquals("a0", replacement.previousAllocation());
    }

    @Test
    void inPlaceUpdateThatStillFitsKeepsTheAllocation() throws SchedulerException {
        nodes(1);
        Job v0 = web(1);
        h.state.job(v0);
        h.state.alloc(running(v0, "a0", 0, "n1"));
        Job v1 = TestJobs.job("app").version(1).group(TestJobs.group("web", 1)
                .constraint("${attr.kernel.name}", "=", "linux").build()).build();
        h.state.job(v1);
        h.process(v1, Evaluation.TRIGGER_JOB_REGISTER);
        Plan plan = h.planner.lastPlan();
        assertTrue(plan.nodeUpdate().isEmpty());
        Allocation updated = plan.nodeAllocation().get("n1").get(0);
        assertEquals("a0", updated.id());
        assertEquals(v1, updated.job());
    }

    @Test
    void onlyTheGroupThatCannotBePlacedFails() throws SchedulerException {
        nodes(2);
        Job job = TestJobs.job("app")
                .group(TestJobs.group("web", 2).build())
                .group(TestJobs.group("gpu", 2).constraint("${node.class}", "=", "gpu").build()).build();
        h.state.job(job);
        h.process(job, Evaluation.TRIGGER_JOB_REGISTER);
        Evaluation done = h.planner.lastUpdate();
        assertEquals(Set.of("gpu"), done.failedTgAllocs().keySet());
        assertEquals(Map.of("web", 0, "gpu", 2), done.queuedAllocations());
        assertEquals(1, done.failedTgAllocs().get("gpu").coalescedFailures());
        assertEquals(2, h.planner.placedAllocs().size());
    }

    @Test
    void blockedEvalThatStillCannotPlaceStaysBlocked() throws SchedulerException {
        nodes(1);
        Job job = TestJobs.job("app").constraint("${attr.kernel.name}", "=", "windows")
                .group(TestJobs.group("web", 1).build()).build();
        h.state.job(job);
        Evaluation blocked = EvalBuilder.from(Evaluation.forJob("b1", job, Evaluation.TRIGGER_QUEUED_ALLOCS, 0))
                .status(Evaluation.STATUS_BLOCKED, "").build();
        h.scheduler(Job.TYPE_SERVICE).process(blocked);
        assertEquals(Evaluation.STATUS_BLOCKED, h.planner.lastUpdate().status());
        assertTrue(h.planner.created.isEmpty(), "no second blocked eval");
    }

    @Test
    void drainingNodeAllocMarkedForMigrationMoves() throws SchedulerException {
        nodes(2);
        Job job = web(1);
        h.state.job(job);
        h.state.node(TestNodes.node("n1").draining().build());
        h.state.alloc(TestAllocs.alloc(job, "a0", "web", 0, "n1", Allocation.DESIRED_RUN, Allocation.CLIENT_RUNNING,
                TestAllocs.migrate(), null, null, 0));
        h.process(job, Evaluation.TRIGGER_NODE_DRAIN);
        Plan plan = h.planner.lastPlan();
        assertEquals(AllocStop.MIGRATING, plan.nodeUpdate().get("n1").get(0).desiredDescription());
        Allocation moved = plan.nodeAllocation().get("n2").get(0);
        assertEquals("a0", moved.previousAllocation());
        assertEquals("app.web[0]", moved.name());
    }

    @Test
    void datacenterGlobsAndNodePools() throws SchedulerException {
        h.state.node(TestNodes.node("n1").dc("eu-west").build()).node(TestNodes.node("n2").dc("us-east").build())
                .node(TestNodes.node("n3").dc("eu-north").pool("gpu").build());
        Job job = TestJobs.job("app").datacenters("eu-*").group(TestJobs.group("web", 2).build()).build();
        h.state.job(job);
        h.process(job, Evaluation.TRIGGER_JOB_REGISTER);
        assertEquals(Set.of("n1"), h.planner.placedAllocs().stream().map(Allocation::nodeId)
                .collect(Collectors.toSet()), "n2 is in another DC, n3 in another pool");
        AllocMetric metric = h.planner.placedAllocs().get(0).metrics();
        assertEquals(Map.of("eu-west", 1), metric.nodesAvailable());
        assertEquals(1, metric.nodesInPool());
        assertEquals("default", metric.nodePool());
    }

    @Test
    void batchComparesTwoNodes() throws SchedulerException {
        nodes(10);
        Job job = TestJobs.job("b").type(Job.TYPE_BATCH).group(TestJobs.group("web", 1).build()).build();
        h.state.job(job);
        h.process(job, Evaluation.TRIGGER_JOB_REGISTER);
        assertEquals(2, h.planner.placedAllocs().get(0).metrics().nodesEvaluated());
    }

    @Test
    void stickyDiskKeepsTheReplacementOnItsNode() throws SchedulerException {
        nodes(5);
        Job v0 = TestJobs.job("app").group(TestJobs.group("web", 1).stickyDisk().build()).build();
        h.state.job(v0);
        h.state.alloc(running(v0, "a0", 0, "n3"));
        Job v1 = TestJobs.job("app").version(1).group(TestJobs.group("web", 1).stickyDisk()
                .task(TestJobs.task("server", "raw_exec", 600, 256)).build()).build();
        h.state.job(v1);
        h.process(v1, Evaluation.TRIGGER_JOB_REGISTER);
        Allocation replacement = h.planner.lastPlan().nodeAllocation().values().stream().flatMap(List::stream)
                .findFirst().orElseThrow();
        assertEquals("n3", replacement.nodeId());
        assertEquals("a0", replacement.previousAllocation());
    }

    @Test
    void disconnectedNodeAllocBecomesUnknownAndIsReplaced() throws SchedulerException {
        nodes(2);
        h.state.node(TestNodes.node("n9").status(Node.STATUS_DISCONNECTED).build());
        Job job = TestJobs.job("app").group(TestJobs.group("web", 1).disconnect(Duration.ofMinutes(30), true)
                .build()).build();
        h.state.job(job);
        h.state.alloc(running(job, "a0", 0, "n9"));
        h.process(job, Evaluation.TRIGGER_NODE_UPDATE);

        Plan plan = h.planner.lastPlan();
        Allocation unknown = plan.nodeAllocation().get("n9").get(0);
        assertEquals("a0", unknown.id());
        assertEquals(Allocation.CLIENT_UNKNOWN, unknown.clientStatus());
        assertEquals(Allocation.DESIRED_RUN, unknown.desiredStatus());
        Evaluation timeout = h.planner.created.get(0);
        assertEquals(Evaluation.TRIGGER_MAX_DISCONNECT_TIMEOUT, timeout.triggeredBy());
        assertEquals(Harness.NOW.plusSeconds(1800), timeout.waitUntil());
        assertEquals(timeout.id(), unknown.followupEvalId());
        Allocation replacement = h.planner.placedAllocs().stream().filter(a -> !a.id().equals("a0")).findFirst()
                .orElseThrow();
        assertEquals("a0", replacement.previousAllocation());
        assertNotEquals("n9", replacement.nodeId());
    }
}
