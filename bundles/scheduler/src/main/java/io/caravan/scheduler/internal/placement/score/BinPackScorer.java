package io.caravan.scheduler.internal.placement.score;

import io.caravan.scheduler.SchedulerConfiguration;
import io.caravan.scheduler.internal.placement.EvalContext;
import io.caravan.scheduler.internal.placement.NodeScorer;
import io.caravan.scheduler.internal.placement.PlacementRequest;
import io.caravan.scheduler.internal.placement.RankedNode;

/**
 * Nomad's resource fit score over the free fractions of CPU and memory after the placement:
 * {@code total = 10^freeCpu + 10^freeMem}; {@code binpack} scores {@code 20 - total} (favours full nodes),
 * {@code spread} scores {@code total - 2} (favours empty ones), clamped to [0, 18] and divided by 18.
 */
public final class BinPackScorer implements NodeScorer {
    static final double MAX_FIT = 18.0;
    private static final double LN10 = Math.log(10);

    @Override
    public String name() {
        return "binpack";
    }

    @Override
    public boolean nodeLocal() {
        return true;
    }

    @Override
    public Bound bind(PlacementRequest request, EvalContext ctx) {
        boolean spread = SchedulerConfiguration.SPREAD.equals(ctx.config().schedulerAlgorithm());
        return node -> fitness(node, spread) / MAX_FIT;
    }

    static double fitness(RankedNode node, boolean spread) {
        double total = Math.exp(LN10 * node.freeCpuFraction()) + Math.exp(LN10 * node.freeMemoryFraction());
        double score = spread ? total - 2 : 20 - total;
        return Math.max(0, Math.min(MAX_FIT, score));
    }
}
