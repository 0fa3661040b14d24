package io.caravan.scheduler.internal.placement.score;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.caravan.api.model.Job;
import io.caravan.api.model.Spread;
import io.caravan.scheduler.SchedulerConfiguration;
import io.caravan.scheduler.internal.placement.EvalContext;
import io.caravan.scheduler.internal.placement.NodeScorer;
import io.caravan.scheduler.internal.placement.PlacementRequest;
import io.caravan.scheduler.internal.placement.TestContexts;
import io.caravan.scheduler.testing.InMemoryState;
import io.caravan.scheduler.testing.TestAllocs;
import io.caravan.scheduler.testing.TestJobs;
import io.caravan.scheduler.testing.TestNodes;

class ScorersTest {
    private static final double EPS = 1e-9;

    private static double score(NodeScorer scorer, Job job, InMemoryState state, String nodeId, Set<String> penalty,
                                SchedulerConfiguration config) {
        EvalContext ctx = TestContexts.context(state, job, config);
        PlacementRequest request = PlacementRequest.of(job, job.taskGroups().get(0), "x", penalty, null);
        NodeScorer.Bound bound = scorer.bind(request, ctx);
        if (bound == null) {
            return Double.NaN;
        }
        return bound.score(TestContexts.ranked(ctx, request, state.node(nodeId).orElseThrow()));
    }

    /** Binpack on an empty 4000 MHz / 8192 MB node asked for 500 MHz / 256 MB: Nomad's formula by hand. */
    static Stream<Arguments> fitRows() {
        double total = Math.pow(10, 1 - 500.0 / 4000) + Math.pow(10, 1 - 256.0 / 8192);
        return Stream.of(
                Arguments.of(SchedulerConfiguration.BINPACK, (20 - total) / 18),
                Arguments.of(SchedulerConfiguration.SPREAD, (total - 2) / 18));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fitRows")
    void binPack(String algorithm, double expected) {
        Job job = TestJobs.job("app").build();
        InMemoryState state = new InMemoryState().node(TestNodes.node("n1").build());
        SchedulerConfiguration config = new SchedulerConfiguration(algorithm, false, true, false, false, false);
        assertEquals(expected, score(new BinPackScorer(), job, state, "n1", Set.of(), config), EPS);
    }

    @Test
    void binPackPrefersFullerNodes() {
        Job job = TestJobs.job("app").group(TestJobs.group("web", 2).build()).build();
        Job other = TestJobs.job("other").build();
        InMemoryState state = new InMemoryState().node(TestNodes.node("n1").build()).node(TestNodes.node("n2").build());
        state.alloc(TestAllocs.running(other, "o1", 0, "n1"));
        double busy = score(new BinPackScorer(), job, state, "n1", Set.of(), SchedulerConfiguration.DEFAULT);
        double idle = score(new BinPackScorer(), job, state, "n2", Set.of(), SchedulerConfiguration.DEFAULT);
        assertTrue(busy > idle);
    }

    static Stream<Arguments> antiAffinityRows() {
        return Stream.of(Arguments.of("n1", -2.0 / 4), Arguments.of("n2", Double.NaN));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("antiAffinityRows")
    void jobAntiAffinity(String nodeId, double expected) {
        Job job = TestJobs.job("app").group(TestJobs.group("web", 4).build()).build();
        InMemoryState state = new InMemoryState().node(TestNodes.node("n1").build()).node(TestNodes.node("n2").build());
        state.alloc(TestAllocs.running(job, "a0", 0, "n1"));
        assertEquals(expected, score(new JobAntiAffinityScorer(), job, state, nodeId, Set.of(),
                SchedulerConfiguration.DEFAULT), EPS);
    }

    @Test
    void reschedulePenalty() {
        Job job = TestJobs.job("app").build();
        InMemoryState state = new InMemoryState().node(TestNodes.node("n1").build()).node(TestNodes.node("n2").build());
        assertEquals(-1.0, score(new ReschedulePenaltyScorer(), job, state, "n1", Set.of("n1"),
                SchedulerConfiguration.DEFAULT), EPS);
        assertTrue(Double.isNaN(score(new ReschedulePenaltyScorer(), job, state, "n2", Set.of("n1"),
                SchedulerConfiguration.DEFAULT)));
        EvalContext ctx = TestContexts.context(state, job);
        assertNull(new ReschedulePenaltyScorer().bind(
                PlacementRequest.of(job, job.taskGroups().get(0), "x", Set.of(), null), ctx));
    }

    static Stream<Arguments> affinityRows() {
        return Stream.of(
                Arguments.of("rack matches", "r1", "gpu", 50.0 / 75),
                Arguments.of("both match", "r1", "cpu", 25.0 / 75),
                Arguments.of("nothing matches: abstain", "r2", "gpu", Double.NaN),
                Arguments.of("only the negative one", "r2", "cpu", -25.0 / 75));
    }

    /** Affinities: rack = r1 (weight 50), class = cpu (weight -25). */
    @ParameterizedTest(name = "{0}")
    @MethodSource("affinityRows")
    void nodeAffinity(String name, String rack, String nodeClass, double expected) {
        Job job = TestJobs.job("app").affinity("${meta.rack}", "=", "r1", 50)
                .affinity("${node.class}", "=", "cpu", -25).build();
        InMemoryState state = new InMemoryState().node(TestNodes.node("n1").meta("rack", rack)
                .nodeClass(nodeClass).build());
        assertEquals(expected, score(new NodeAffinityScorer(), job, state, "n1", Set.of(),
                SchedulerConfiguration.DEFAULT), EPS);
    }

    static Stream<Arguments> evenSpreadRows() {
        return Stream.of(
                Arguments.of(Map.of(), "r1", 0.0),
                Arguments.of(Map.of("r1", 1), "r2", 1.0),
                Arguments.of(Map.of("r1", 1, "r2", 1), "r1", -1.0),
                Arguments.of(Map.of("r1", 2, "r2", 1), "r1", -1.0),
                Arguments.of(Map.of("r1", 2, "r2", 1), "r2", 1.0),
                Arguments.of(Map.of("r1", 3, "r2", 2), "r2", 0.5));
    }

    @ParameterizedTest(name = "{0} → {1}")
    @MethodSource("evenSpreadRows")
    void evenSpread(Map<String, Integer> used, String value, double expected) {
        assertEquals(expected, SpreadScorer.evenSpreadBoost(used, value), EPS);
    }

    @Test
    void spreadTargetsAndImplicitRemainder() {
        Spread spread = new Spread("${meta.rack}", 100, java.util.List.of(new Spread.Target("r1", 50)));
        assertEquals(Map.of("r1", 5.0, "*", 5.0), SpreadScorer.desiredCounts(spread, 10));
    }

    @Test
    void spreadScoresTowardsTheTarget() {
        Job job = TestJobs.job("app").group(TestJobs.group("web", 4).spread("${meta.rack}", 100,
                new Spread.Target("r1", 50), new Spread.Target("r2", 50)).build()).build();
        InMemoryState state = new InMemoryState().node(TestNodes.node("n1").meta("rack", "r1").build())
                .node(TestNodes.node("n2").meta("rack", "r2").build()).node(TestNodes.node("n3").build());
        state.alloc(TestAllocs.running(job, "a0", 0, "n1"));
        // r1: desired 2, used 1 (+1 for this one) → 0; r2: desired 2, used 0+1 → 0.5; no rack → -1.
        assertTrue(Double.isNaN(score(new SpreadScorer(), job, state, "n1", Set.of(), SchedulerConfiguration.DEFAULT)));
        assertEquals(0.5, score(new SpreadScorer(), job, state, "n2", Set.of(), SchedulerConfiguration.DEFAULT), EPS);
        assertEquals(-1.0, score(new SpreadScorer(), job, state, "n3", Set.of(), SchedulerConfiguration.DEFAULT), EPS);
    }
}
