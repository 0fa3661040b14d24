package io.caravan.scheduler.internal.placement.score;

import java.util.Set;

import io.caravan.scheduler.internal.placement.EvalContext;
import io.caravan.scheduler.internal.placement.NodeScorer;
import io.caravan.scheduler.internal.placement.PlacementRequest;

/** A rescheduled allocation avoids the nodes it failed on: -1 there, abstains elsewhere. */
public final class ReschedulePenaltyScorer implements NodeScorer {
    @Override
    public String name() {
        return "node-reschedule-penalty";
    }

    @Override
    public Bound bind(PlacementRequest request, EvalContext ctx) {
        Set<String> penalised = request.penaltyNodeIds();
        if (penalised.isEmpty()) {
            return null;
        }
        return node -> penalised.contains(node.node().id()) ? -1.0 : Double.NaN;
    }
}
