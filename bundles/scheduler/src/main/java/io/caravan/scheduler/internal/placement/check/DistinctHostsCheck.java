package io.caravan.scheduler.internal.placement.check;

import java.util.List;

import io.caravan.api.model.Constraint;
import io.caravan.api.model.Node;
import io.caravan.scheduler.internal.placement.CheckScope;
import io.caravan.scheduler.internal.placement.EvalContext;
import io.caravan.scheduler.internal.placement.FeasibilityCheck;
import io.caravan.scheduler.internal.placement.PlacementRequest;
import io.caravan.scheduler.internal.placement.Verdict;

/**
 * {@code distinct_hosts}: at job level no two allocations of the job share a node, at group level no two of the
 * group. Counted against the proposed state, so placements in the same plan see each other.
 */
public final class DistinctHostsCheck implements FeasibilityCheck {
    public static final String REASON = Constraint.OP_DISTINCT_HOSTS;

    @Override
    public String name() {
        return "distinct-hosts";
    }

    @Override
    public CheckScope scope() {
        return CheckScope.TRANSIENT;
    }

    @Override
    public boolean appliesTo(PlacementRequest request) {
        return enabled(request.job().constraints()) || enabled(request.group().constraints());
    }

    @Override
    public Verdict test(PlacementRequest request, Node node, EvalContext ctx) {
        boolean jobLevel = enabled(request.job().constraints());
        boolean groupLevel = enabled(request.group().constraints());
        if (!jobLevel && !groupLevel) {
            return Verdict.PASS;
        }
        int here = ctx.proposed().jobAllocsOn(ctx.proposed().indexOf(node.id()), jobLevel ? null : request.group().name());
        return here > 0 ? Verdict.reject(REASON, false) : Verdict.PASS;
    }

    private static boolean enabled(List<Constraint> constraints) {
        for (Constraint c : constraints) {
            if (Constraint.OP_DISTINCT_HOSTS.equals(c.operand()) && !"false".equalsIgnoreCase(c.rTarget())) {
                return true;
            }
        }
        return false;
    }
}
