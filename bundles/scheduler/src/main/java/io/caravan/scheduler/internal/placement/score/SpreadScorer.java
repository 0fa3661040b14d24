package io.caravan.scheduler.internal.placement.score;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.caravan.api.model.Spread;
import io.caravan.scheduler.internal.placement.EvalContext;
import io.caravan.scheduler.internal.placement.NodeScorer;
import io.caravan.scheduler.internal.placement.NodeTarget;
import io.caravan.scheduler.internal.placement.PlacementRequest;
import io.caravan.scheduler.internal.placement.PropertyCounts;

/**
 * {@code spread} blocks (group and job level), Nomad's rules: with targets, each value should hold its percent of
 * the group's count ({@code "*"} or the remainder for values not named) and the boost is
 * {@code (desired - used) / desired × weight share}; without targets, values with fewer allocations than the
 * least used one are boosted and the most used penalised. A node without the attribute gets -1. The sum over
 * all spreads is the score; 0 abstains.
 */
public final class SpreadScorer implements NodeScorer {
    static final String IMPLICIT_TARGET = "*";
    static final int DEFAULT_WEIGHT = 50;

    @Override
    public String name() {
        return "allocation-spread";
    }

    private record Bound1(NodeTarget attribute, PropertyCounts counts, double weightShare,
                          Map<String, Double> desired) {
    }

    @Override
    public Bound bind(PlacementRequest request, EvalContext ctx) {
        List<Spread> spreads = new ArrayList<>(request.group().spreads());
        spreads.addAll(request.job().spreads());
        if (spreads.isEmpty()) {
            return null;
        }
        int sumWeights = 0;
        for (Spread s : spreads) {
            sumWeights += weight(s);
        }
        int count = request.desiredCount();
        List<Bound1> bound = new ArrayList<>(spreads.size());
        for (Spread s : spreads) {
            bound.add(new Bound1(ctx.target(s.attribute()), ctx.propertyCounts(s.attribute(), request.group().name()),
                    sumWeights == 0 ? 0 : (double) weight(s) / sumWeights, desiredCounts(s, count)));
        }
        return ranked -> {
            double total = 0;
            for (Bound1 b : bound) {
                String value = b.attribute().resolve(ranked.node());
                Map<String, Integer> used = b.counts().current(ctx);
                if (value == null) {
                    total -= 1;
                } else if (b.desired().isEmpty()) {
                    total += evenSpreadBoost(used, value);
                } else {
                    total += targetBoost(b, used.getOrDefault(value, 0) + 1, value);
                }
            }
            return total == 0 ? Double.NaN : total;
        };
    }

    private static double targetBoost(Bound1 b, int usedWithThis, String value) {
        Double desired = b.desired().get(value);
        if (desired == null) {
            desired = b.desired().get(IMPLICIT_TARGET);
        }
        if (desired == null) {
            return -1;
        }
        if (desired == 0) {
            return -1;
        }
        return (desired - usedWithThis) / desired * b.weightShare();
    }

    /** Nomad's even spread: compares this value's count with the least and most used values. */
    static double evenSpreadBoost(Map<String, Integer> used, String value) {
        if (used.isEmpty()) {
            return 0;
        }
        int current = used.getOrDefault(value, 0);
        int min = Integer.MAX_VALUE;
        int max = 0;
        for (int c : used.values()) {
            min = Math.min(min, c);
            max = Math.max(max, c);
        }
        if (current != min) {
            return (double) (min - current) / min;
        }
        if (min == max) {
            return -1;
        }
        return (double) (max - min) / min;
    }

    static Map<String, Double> desiredCounts(Spread spread, int count) {
        Map<String, Double> desired = new HashMap<>();
        double sum = 0;
        for (Spread.Target t : spread.spreadTarget()) {
            double d = (t.percent() == null ? 0 : t.percent()) / 100.0 * count;
            desired.put(t.value(), d);
            sum += d;
        }
        if (sum > 0 && sum < count) {
            desired.putIfAbsent(IMPLICIT_TARGET, count - sum);
        }
        return desired;
    }

    private static int weight(Spread s) {
        return s.weight() == null ? DEFAULT_WEIGHT : s.weight();
    }
}
