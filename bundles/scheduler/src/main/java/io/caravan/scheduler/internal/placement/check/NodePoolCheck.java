package io.caravan.scheduler.internal.placement.check;

import io.caravan.api.model.Node;
import io.caravan.scheduler.internal.placement.CheckScope;
import io.caravan.scheduler.internal.placement.EvalContext;
import io.caravan.scheduler.internal.placement.FeasibilityCheck;
import io.caravan.scheduler.internal.placement.PlacementRequest;
import io.caravan.scheduler.internal.placement.Verdict;

/** The node is in the job's pool ({@code default} when unset; the built-in pool {@code all} holds every node). */
public final class NodePoolCheck implements FeasibilityCheck {
    public static final String REASON = "node pool";
    public static final String ALL = "all";

    @Override
    public String name() {
        return "node-pool";
    }

    @Override
    public CheckScope scope() {
        return CheckScope.CANDIDATE;
    }

    @Override
    public Verdict test(PlacementRequest request, Node node, EvalContext ctx) {
        String wanted = request.job().nodePool();
        if (wanted == null || wanted.isEmpty()) {
            wanted = Node.DEFAULT_POOL;
        }
        String pool = node.nodePool() == null || node.nodePool().isEmpty() ? Node.DEFAULT_POOL : node.nodePool();
        return ALL.equals(wanted) || wanted.equals(pool) ? Verdict.PASS : Verdict.reject(REASON, true);
    }
}
