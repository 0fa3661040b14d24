package io.caravan.scheduler.internal.placement.score;

import java.util.ArrayList;
import java.util.List;

import io.caravan.api.model.Affinity;
import io.caravan.api.model.Node;
import io.caravan.api.model.Task;
import io.caravan.scheduler.internal.placement.ConstraintMatcher;
import io.caravan.scheduler.internal.placement.EvalContext;
import io.caravan.scheduler.internal.placement.NodeScorer;
import io.caravan.scheduler.internal.placement.PlacementRequest;

/**
 * Job, group and task affinities: the sum of the weights of those the node matches, divided by the sum of
 * absolute weights. Abstains when nothing matches (score 0) or there are no affinities.
 */
public final class NodeAffinityScorer implements NodeScorer {
    static final int DEFAULT_WEIGHT = 50;

    @Override
    public String name() {
        return "node-affinity";
    }

    @Override
    public boolean nodeLocal() {
        return true;
    }

    @Override
    public Bound bind(PlacementRequest request, EvalContext ctx) {
        List<Affinity> affinities = new ArrayList<>(request.job().affinities());
        affinities.addAll(request.group().affinities());
        for (Task t : request.group().tasks()) {
            affinities.addAll(t.affinities());
        }
        if (affinities.isEmpty()) {
            return null;
        }
        double sumWeights = 0;
        for (Affinity a : affinities) {
            sumWeights += Math.abs(weight(a));
        }
        double total = sumWeights;
        return ranked -> {
            Node node = ranked.node();
            double matched = 0;
            for (Affinity a : affinities) {
                String left = ctx.target(a.lTarget()).resolve(node);
                String right = ctx.target(a.rTarget()).resolve(node);
                if (ConstraintMatcher.matches(a.operand(), left, right, ctx)) {
                    matched += weight(a);
                }
            }
            return matched == 0 || total == 0 ? Double.NaN : matched / total;
        };
    }

    private static int weight(Affinity a) {
        return a.weight() == null ? DEFAULT_WEIGHT : a.weight();
    }
}
