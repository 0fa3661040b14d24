package io.caravan.scheduler.internal.placement.check;

import io.caravan.api.model.Node;
import io.caravan.scheduler.internal.placement.CheckScope;
import io.caravan.scheduler.internal.placement.EvalContext;
import io.caravan.scheduler.internal.placement.FeasibilityCheck;
import io.caravan.scheduler.internal.placement.PlacementRequest;
import io.caravan.scheduler.internal.placement.Verdict;

/** Only ready, eligible, non-draining nodes take new work (Nomad's {@code Node.Ready()}). */
public final class NodeReadyCheck implements FeasibilityCheck {
    public static final String REASON = "node not ready";

    @Override
    public String name() {
        return "node-ready";
    }

    @Override
    public CheckScope scope() {
        return CheckScope.CANDIDATE;
    }

    @Override
    public Verdict test(PlacementRequest request, Node node, EvalContext ctx) {
        return node.ready() ? Verdict.PASS : Verdict.reject(REASON, false);
    }
}
