package io.caravan.scheduler.internal.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.caravan.api.model.AllocMetric;
import io.caravan.api.model.Job;
import io.caravan.api.model.Node;
import io.caravan.scheduler.NodeClasses;
import io.caravan.scheduler.testing.InMemoryState;
import io.caravan.scheduler.testing.TestJobs;
import io.caravan.scheduler.testing.TestNodes;

class PlacementPipelineTest {
    private final InMemoryState state = new InMemoryState();
    private final Job job = TestJobs.job("app").group(TestJobs.group("web", 1).build()).build();

    private Selection selectOnce(int limit) {
        EvalContext ctx = TestContexts.context(state, job);
        PlacementPipeline pipeline = PlacementPipeline.standard();
        CandidateNodes candidates = pipeline.candidates(job, state.nodes(), ctx, 7, true);
        return pipeline.select(PlacementRequest.of(job, job.taskGroups().get(0), "app.web[0]", Set.of(), null),
                candidates, ctx, limit);
    }

    @Test
    void everyRejectionIsCountedByReasonAndClass() {
        Node noDriver = TestNodes.node("n1").driver("raw_exec", false, false).build();
        Node full = TestNodes.node("n2").resources(4000, 100).build();
        state.node(noDriver).node(full).node(TestNodes.node("n3").build()).node(TestNodes.node("n4").build())
                .node(TestNodes.node("n5").status(Node.STATUS_DOWN).build());
        Selection s = selectOnce(10);
        AllocMetric m = s.metric();
        assertTrue(s.found());
        assertEquals(4, m.nodesEvaluated(), "the down node is not a candidate");
        assertEquals(4, m.nodesInPool());
        assertEquals(1, m.nodesFiltered());
        assertEquals(1, m.constraintFiltered().get("missing drivers"));
        assertEquals(1, m.classFiltered().get(NodeClasses.computedClass(noDriver)));
        assertEquals(1, m.nodesExhausted());
        assertEquals(1, m.dimensionExhausted().get("memory"));
        assertEquals(1, m.classExhausted().get(NodeClasses.computedClass(full)));
        assertEquals(2, m.scoreMetaData().size());
        assertTrue(m.scoreMetaData().get(0).normScore() >= m.scoreMetaData().get(1).normScore());
        assertEquals(s.chosen().node().id(), m.scoreMetaData().get(0).nodeId());
    }

    @Test
    void topScoresAreCappedAtFive() {
        for (int i = 0; i < 9; i++) {
            state.node(TestNodes.node("n" + i).build());
        }
        AllocMetric m = selectOnce(9).metric();
        assertEquals(9, m.nodesEvaluated());
        assertEquals(5, m.scoreMetaData().size());
    }

    @Test
    void limitStopsTheScan() {
        for (int i = 0; i < 9; i++) {
            state.node(TestNodes.node("n" + i).build());
        }
        assertEquals(2, selectOnce(2).metric().nodesEvaluated());
    }

    @Test
    void limitWidensWithSpreadOrAffinity() {
        Job spread = TestJobs.job("app").group(TestJobs.group("web", 3).spread("${meta.rack}", 50).build()).build();
        Job plain = TestJobs.job("app").group(TestJobs.group("web", 300).build()).build();
        assertEquals(100, PlacementPipeline.limit(
                PlacementRequest.of(spread, spread.taskGroups().get(0), "x", Set.of(), null), 4));
        assertEquals(4, PlacementPipeline.limit(
                PlacementRequest.of(plain, plain.taskGroups().get(0), "x", Set.of(), null), 4));
        Job big = TestJobs.job("app").affinity("${meta.rack}", "=", "r1", 50)
                .group(TestJobs.group("web", 300).build()).build();
        assertEquals(300, PlacementPipeline.limit(
                PlacementRequest.of(big, big.taskGroups().get(0), "x", Set.of(), null), 4));
    }

    @Test
    void candidatesAreShuffledDeterministically() {
        for (int i = 0; i < 20; i++) {
            state.node(TestNodes.node("n" + i).build());
        }
        EvalContext ctx = TestContexts.context(state, job);
        PlacementPipeline pipeline = PlacementPipeline.standard();
        List<Node> a = pipeline.candidates(job, state.nodes(), ctx, 99, true).nodes();
        List<Node> b = pipeline.candidates(job, state.nodes(), ctx, 99, true).nodes();
        List<Node> c = pipeline.candidates(job, state.nodes(), ctx, 100, true).nodes();
        assertEquals(a, b);
        assertTrue(!a.equals(c) || !a.equals(state.nodes()));
    }
}
