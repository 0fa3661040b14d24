package io.caravan.scheduler.internal.placement;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntFunction;

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
    /** The best scores so far and their nodes' rank-cache slots (unordered); {@link #weakest} indexes the lowest. */
    private final double[] bestScores = new double[TOP_SCORES];
    private final int[] bestSlots = new int[TOP_SCORES];
    /** When each was scored: equal scores are listed in that order, so the chosen node comes first among equals. */
    private final int[] bestOrder = new int[TOP_SCORES];
    private int bestCount;
    private int scored;
    private int weakest;

    MetricsRecorder(EvalContext ctx) {
        this.ctx = ctx;
    }

    void evaluated(int nodes) {
        evaluated += nodes;
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

    /** A node was scored: kept if among the five best so far. No allocation: this runs for every node compared. */
    void scored(int slot, double score) {
        int order = scored++;
        if (bestCount < TOP_SCORES) {
            bestScores[bestCount] = score;
            bestOrder[bestCount] = order;
            bestSlots[bestCount++] = slot;
        } else if (score > bestScores[weakest]) {
            bestScores[weakest] = score;
            bestOrder[weakest] = order;
            bestSlots[weakest] = slot;
        } else {
            return;
        }
        if (bestCount == TOP_SCORES) {
            weakest = 0;
            for (int i = 1; i < TOP_SCORES; i++) {
                if (bestScores[i] < bestScores[weakest]) {
                    weakest = i;
                }
            }
        }
    }

    public int nodesEvaluated() {
        return evaluated;
    }

    private boolean ranksBefore(int a, int b) {
        return bestScores[a] > bestScores[b] || bestScores[a] == bestScores[b] && bestOrder[a] < bestOrder[b];
    }

    /** @param ranked the scored node of a slot, its scores and final score filled in */
    AllocMetric build(CandidateNodes candidates, List<String> scorerNames, Duration time, IntFunction<RankedNode> ranked) {
        // At most five: an insertion sort by score, descending, equal scores in the order they were scored.
        int[] byRank = new int[bestCount];
        for (int i = 0; i < bestCount; i++) {
            int j = i;
            while (j > 0 && ranksBefore(i, byRank[j - 1])) {
                byRank[j] = byRank[j - 1];
                j--;
            }
            byRank[j] = i;
        }
        List<RankedNode> top = new ArrayList<>(bestCount);
        for (int i : byRank) {
            top.add(ranked.apply(bestSlots[i]));
        }
        List<AllocMetric.NodeScoreMeta> meta = new ArrayList<>(top.size());
        for (RankedNode n : top) {
            Map<String, Double> scores = new TreeMap<>();
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
