package io.caravan.scheduler.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

import org.junit.jupiter.api.Test;

import io.caravan.api.model.AllocMetric;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.api.model.Node;
import io.caravan.api.model.Spread;
import io.caravan.scheduler.SchedulerConfiguration;
import io.caravan.scheduler.SchedulerException;
import io.caravan.scheduler.testing.Harness;
import io.caravan.scheduler.testing.TestJobs;
import io.caravan.scheduler.testing.TestNodes;

/**
 * Placement outcomes on clusters of hundreds of nodes, where the visit loop runs from its caches (class verdicts,
 * ranked nodes, spread tables) for most nodes: spread still reaches its targets, constraints still exclude, bin
 * packing still packs.
 */
class PlacementAtScaleTest {
    private final Harness h = new Harness();

    private void racks(int nodes, int racks) {
        for (int i = 0; i < nodes; i++) {
            h.state.node(TestNodes.node(String.format("n%03d", i)).meta("rack", "r" + (i % racks + 1)).build());
        }
    }

    /** Spread is one score among several (bin packing, anti-affinity), so it reaches its targets give or take a few. */
    private static void assertNear(Map<String, Integer> expected, Map<String, Integer> actual, int slack) {
        assertEquals(expected.keySet(), actual.keySet(), "values placed on: " + actual);
        expected.forEach((k, v) -> assertTrue(Math.abs(actual.get(k) - v) <= slack,
                k + ": " + actual.get(k) + " placed, " + v + " wanted (" + actual + ")"));
    }

    private Map<String, Integer> placedBy(Function<Node, String> key) {
        Map<String, Integer> out = new TreeMap<>();
        for (Allocation a : h.planner.placedAllocs()) {
            out.merge(key.apply(h.state.node(a.nodeId()).orElseThrow()), 1, Integer::sum);
        }
        return out;
    }

    @Test
    void spreadReachesItsTargetPercentages() throws SchedulerException {
        racks(200, 4);
        Job job = TestJobs.job("app").group(TestJobs.group("web", 100).spread("${meta.rack}", 100,
                new Spread.Target("r1", 50), new Spread.Target("r2", 30), new Spread.Target("r3", 20)).build())
                .build();
        h.state.job(job);
        h.process(job, Evaluation.TRIGGER_JOB_REGISTER);
        // r4 has no target (the targets add up to 100 %): nothing goes there.
        assertNear(Map.of("r1", 50, "r2", 30, "r3", 20), placedBy(n -> n.meta().get("rack")), 2);
    }

    @Test
    void spreadWithoutTargetsIsEven() throws SchedulerException {
        racks(300, 3);
        Job job = TestJobs.job("app").group(TestJobs.group("web", 150).spread("${meta.rack}", 100).build()).build();
        h.state.job(job);
        h.process(job, Evaluation.TRIGGER_JOB_REGISTER);
        assertNear(Map.of("r1", 50, "r2", 50, "r3", 50), placedBy(n -> n.meta().get("rack")), 2);
    }

    @Test
    void spreadCountsAllocationsTheJobAlreadyRuns() throws SchedulerException {
        racks(120, 2);
        Job job = TestJobs.job("app").group(TestJobs.group("web", 40).spread("${meta.rack}", 100).build()).build();
        h.state.job(job);
        h.process(job, Evaluation.TRIGGER_JOB_REGISTER); // the planner commits the 40 to the state
        Job bigger = TestJobs.job("app").group(TestJobs.group("web", 60).spread("${meta.rack}", 100).build()).build();
        h.state.job(bigger);
        h.process(bigger, Evaluation.TRIGGER_JOB_REGISTER);
        assertEquals(20, h.planner.lastPlan().nodeAllocation().values().stream().mapToInt(java.util.List::size).sum());
        Map<String, Integer> all = new TreeMap<>();
        for (Allocation a : h.state.allocsByJob(job.namespace(), job.id())) {
            if (!a.terminal()) {
                all.merge(h.state.node(a.nodeId()).orElseThrow().meta().get("rack"), 1, Integer::sum);
            }
        }
        assertNear(Map.of("r1", 30, "r2", 30), all, 2);
    }

    @Test
    void constraintsStillExcludeWholeClasses() throws SchedulerException {
        racks(200, 4);
        for (int i = 0; i < 20; i++) {
            h.state.node(TestNodes.node("nodriver" + i).meta("rack", "r1").driver("raw_exec", false, false).build());
        }
        Job job = TestJobs.job("app").constraint("${meta.rack}", "!=", "r2")
                .group(TestJobs.group("web", 120).spread("${meta.rack}", 100).build()).build();
        h.state.job(job);
        h.process(job, Evaluation.TRIGGER_JOB_REGISTER);
        Map<String, Integer> byRack = placedBy(n -> n.meta().get("rack"));
        assertNear(Map.of("r1", 40, "r3", 40, "r4", 40), byRack, 3); // nothing on r2, spread over the rest
        assertTrue(h.planner.placedAllocs().stream().noneMatch(a -> a.nodeId().startsWith("nodriver")),
                "nodes without the driver are never chosen");
        AllocMetric m = h.planner.placedAllocs().get(0).metrics();
        assertTrue(m.nodesFiltered() > 0 && m.classFiltered().size() >= 1, "filtered nodes are counted by class");
        assertTrue(m.constraintFiltered().containsKey("${meta.rack} != r2")
                || m.constraintFiltered().containsKey("computed class ineligible"));
    }

    /**
     * 40 jobs of one 500 MHz allocation each, one evaluation after the other, on 20 nodes of 4000 MHz: bin packing
     * piles them onto few nodes (5 could hold them all), the spread algorithm over most of them.
     */
    @Test
    void binPackingStillPacks() throws SchedulerException {
        int packed = nodesUsed(SchedulerConfiguration.DEFAULT);
        int spread = nodesUsed(new SchedulerConfiguration(SchedulerConfiguration.SPREAD, false, true, false, false,
                false));
        assertTrue(packed <= 10, "binpack used " + packed + " nodes");
        assertTrue(spread >= 16, "the spread algorithm used " + spread + " of 20 nodes");
    }

    private static int nodesUsed(SchedulerConfiguration config) throws SchedulerException {
        Harness h = new Harness();
        h.state.configuration(config);
        for (int i = 0; i < 20; i++) {
            h.state.node(TestNodes.node(String.format("n%02d", i)).build());
        }
        for (int j = 0; j < 40; j++) {
            Job job = TestJobs.job("app" + j).group(TestJobs.group("web", 1).build()).build();
            h.state.job(job);
            h.process(job, Evaluation.TRIGGER_JOB_REGISTER);
        }
        assertEquals(40, h.planner.placedAllocs().size());
        return (int) h.planner.placedAllocs().stream().map(Allocation::nodeId).distinct().count();
    }
}
