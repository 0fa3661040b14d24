package io.caravan.scheduler.internal.placement.score;

import io.caravan.scheduler.internal.placement.EvalContext;
import io.caravan.scheduler.internal.placement.NodeScorer;
import io.caravan.scheduler.internal.placement.PlacementRequest;

/**
 * Penalises nodes that already run allocations of the same job and group: {@code -(collisions + 1) / count}.
 * Abstains on nodes without any.
 */
public final class JobAntiAffinityScorer implements NodeScorer {
    @Override
    public String name() {
        return "job-anti-affinity";
    }

    @Override
    public boolean nodeLocal() {
        return true;
    }

    @Override
    public Bound bind(PlacementRequest request, EvalContext ctx) {
        String group = request.group().name();
        int desired = Math.max(1, request.desiredCount());
        return node -> {
            int index = node.index() >= 0 ? node.index() : ctx.proposed().indexOf(node.node().id());
            int collisions = ctx.proposed().jobAllocsOn(index, group);
            return collisions <= 0 ? Double.NaN : -(collisions + 1.0) / desired;
        };
    }
}
