package io.caravan.scheduler.internal.placement.score;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.caravan.api.model.Spread;
import io.caravan.scheduler.internal.placement.EvalContext;
import io.caravan.scheduler.internal.placement.NodeScorer;
import io.caravan.scheduler.internal.placement.NodeValues;
import io.caravan.scheduler.internal.placement.PlacementRequest;
import io.caravan.scheduler.internal.placement.PropertyCounts;
import io.caravan.scheduler.internal.placement.RankedNode;

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

    /**
     * One spread block bound to a selection. The counts cannot change while one placement is chosen, so each
     * value's boost is computed once (on first use) from its count and looked up by value ID for every node.
     */
    private static final class SpreadTerm {
        final NodeValues values;
        final PropertyCounts used;
        final boolean nothingPlaced;
        final int min;
        final int max;
        final double weightShare;
        final Map<String, Double> desired;
        /** Per value ID; NaN until computed. */
        private double[] boosts;

        SpreadTerm(PropertyCounts used, double weightShare, Map<String, Double> desired) {
            this.values = used.values();
            this.used = used;
            this.weightShare = weightShare;
            this.desired = desired;
            int lo = Integer.MAX_VALUE;
            int hi = 0;
            boolean none = true;
            for (int id = 0; id < values.size(); id++) {
                int c = used.count(id);
                if (c != 0) {
                    none = false;
                    lo = Math.min(lo, c);
                    hi = Math.max(hi, c);
                }
            }
            nothingPlaced = none;
            min = lo;
            max = hi;
            boosts = new double[values.size()];
            Arrays.fill(boosts, Double.NaN);
        }

        double boostOf(int id) {
            if (id == NodeValues.NONE) {
                return -1;
            }
            if (id >= boosts.length) {
                int from = boosts.length; // a value of a node outside the snapshot
                boosts = Arrays.copyOf(boosts, Math.max(id + 1, from * 2));
                Arrays.fill(boosts, from, boosts.length, Double.NaN);
            }
            double b = boosts[id];
            if (Double.isNaN(b)) {
                b = desired.isEmpty()
                        ? evenSpreadBoost(nothingPlaced, used.count(id), min, max)
                        : targetBoost(this, used.count(id) + 1, values.name(id));
                boosts[id] = b;
            }
            return b;
        }
    }

    /** The sum over the spread blocks; 0 abstains. */
    private static final class SpreadBound implements NodeScorer.IndexedBound {
        /** Up to this many values, a single block's scores are tabled up front (one per rack, zone, …). */
        static final int TABLED_VALUES = 1024;

        private final SpreadTerm[] terms;
        /**
         * With one block of few values: the score by value ID + 1 (slot 0: nodes without the value), so scoring a node
         * is two array reads.
         */
        private final double[] table;
        private final NodeValues tableValues;

        SpreadBound(SpreadTerm[] terms) {
            this.terms = terms;
            if (terms.length == 1 && terms[0].values.size() <= TABLED_VALUES) {
                SpreadTerm t = terms[0];
                tableValues = t.values;
                table = new double[t.values.size() + 1];
                for (int id = NodeValues.NONE; id < t.values.size(); id++) {
                    double b = t.boostOf(id);
                    table[id + 1] = b == 0 ? Double.NaN : b;
                }
            } else {
                tableValues = null;
                table = null;
            }
        }

        @Override
        public double scoreAt(int nodeIndex) {
            if (table != null) {
                return table[tableValues.idAt(nodeIndex) + 1];
            }
            double total = 0;
            for (SpreadTerm t : terms) {
                total += t.boostOf(t.values.idAt(nodeIndex));
            }
            return total == 0 ? Double.NaN : total;
        }

        @Override
        public double score(RankedNode node) {
            double total = 0;
            for (SpreadTerm t : terms) {
                total += t.boostOf(t.values.id(node));
            }
            return total == 0 ? Double.NaN : total;
        }
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
        SpreadTerm[] terms = new SpreadTerm[spreads.size()];
        for (int i = 0; i < terms.length; i++) {
            Spread s = spreads.get(i);
            terms[i] = new SpreadTerm(ctx.propertyCounts(s.attribute(), request.group().name()).current(ctx),
                    sumWeights == 0 ? 0 : (double) weight(s) / sumWeights, desiredCounts(s, count));
        }
        return new SpreadBound(terms);
    }

    private static double targetBoost(SpreadTerm b, int usedWithThis, String value) {
        Double desired = b.desired.get(value);
        if (desired == null) {
            desired = b.desired.get(IMPLICIT_TARGET);
        }
        if (desired == null) {
            return -1;
        }
        if (desired == 0) {
            return -1;
        }
        return (desired - usedWithThis) / desired * b.weightShare;
    }

    /** Nomad's even spread: compares this value's count with the least and most used values. */
    static double evenSpreadBoost(Map<String, Integer> used, String value) {
        int min = Integer.MAX_VALUE;
        int max = 0;
        for (int c : used.values()) {
            min = Math.min(min, c);
            max = Math.max(max, c);
        }
        return evenSpreadBoost(used.isEmpty(), used.getOrDefault(value, 0), min, max);
    }

    private static double evenSpreadBoost(boolean nothingPlaced, int current, int min, int max) {
        if (nothingPlaced) {
            return 0;
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
