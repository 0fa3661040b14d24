package io.caravan.scheduler.internal.placement;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeMap;

import io.caravan.api.model.AllocMetric;
import io.caravan.api.model.Node;

/** Builds one placement's {@link AllocMetric}: every node evaluated, filtered (by reason) or exhausted. */
public final class MetricsRecorder {
    /** Nomad keeps the five best-scoring nodes' details. */
    static final int TOP_SCORES = 5;

    private final EvalContext ctx;
    private int evaluated;
    private int filtered;
    private int exhausted;
    private final Map<String, Integer> classFiltered = new TreeMap<>();
    private final Map<String, Integer> constraintFiltered = new TreeMap<>();
    private final Map<String, Integer> classExhausted = new TreeMap<>();
    private final Map<String, Integer> dimensionExhausted = new TreeMap<>();
    private final PriorityQueue<RankedNode> best =
            new PriorityQueue<>(Comparator.comparingDouble(RankedNode::finalScore));

    MetricsRecorder(EvalContext ctx) {
        this.ctx = ctx;
    }

    void evaluated() {
        evaluated++;
    }

    void filtered(Node node, String reason) {
        filtered++;
        String cls = ctx.classOf(node);
        if (!cls.isEmpty()) {
            classFiltered.merge(cls, 1, Integer::sum);
        }
        constraintFiltered.merge(reason, 1, Integer::sum);
    }

    void exhausted(Node node, String dimension) {
        exhausted++;
        String cls = ctx.classOf(node);
        if (!cls.isEmpty()) {
            classExhausted.merge(cls, 1, Integer::sum);
        }
        dimensionExhausted.merge(dimension, 1, Integer::sum);
    }

    void scored(RankedNode node) {
        if (best.size() < TOP_SCORES) {
            best.add(node);
        } else if (node.finalScore() > best.peek().finalScore()) {
            best.poll();
            best.add(node);
        }
    }

    public int nodesEvaluated() {
        return evaluated;
    }

    AllocMetric build(CandidateNodes candidates, List<String> scorerNames, Duration time) {
        List<RankedNode> top = new ArrayList<>(best);
        top.sort(Comparator.comparingDouble(RankedNode::finalScore).reversed());
        List<AllocMetric.NodeScoreMeta> meta = new ArrayList<>(top.size());
        for (RankedNode n : top) {
            Map<String, Double> scores = new LinkedHashMap<>();
            double[] s = n.scores();
            for (int i = 0; i < s.length; i++) {
                if (!Double.isNaN(s[i])) {
                    scores.put(scorerNames.get(i), s[i]);
                }
            }
            meta.add(new AllocMetric.NodeScoreMeta(n.node().id(), scores, n.finalScore()));
        }
        return new AllocMetric(evaluated, filtered, candidates.size(), candidates.pool(), candidates.byDatacenter(),
                classFiltered, constraintFiltered, exhausted, classExhausted, dimensionExhausted, List.of(), Map.of(),
                meta, time, 0);
    }
}
