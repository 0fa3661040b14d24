package io.caravan.scheduler.internal.placement.check;

import io.caravan.api.model.Constraint;
import io.caravan.api.model.Node;
import io.caravan.scheduler.internal.placement.CheckScope;
import io.caravan.scheduler.internal.placement.EvalContext;
import io.caravan.scheduler.internal.placement.FeasibilityCheck;
import io.caravan.scheduler.internal.placement.PlacementRequest;
import io.caravan.scheduler.internal.placement.Verdict;

/**
 * {@code distinct_property}: at most {@code value} (default 1) allocations of the job (job-level constraint) or
 * of the group (group-level) per value of the property. A node without the property is rejected.
 */
public final class DistinctPropertyCheck implements FeasibilityCheck {
    public static final String REASON = Constraint.OP_DISTINCT_PROPERTY;

    @Override
    public String name() {
        return "distinct-property";
    }

    @Override
    public CheckScope scope() {
        return CheckScope.TRANSIENT;
    }

    @Override
    public boolean appliesTo(PlacementRequest request) {
        return request.job().constraints().stream().anyMatch(c -> Constraint.OP_DISTINCT_PROPERTY.equals(c.operand()))
                || request.group().constraints().stream()
                        .anyMatch(c -> Constraint.OP_DISTINCT_PROPERTY.equals(c.operand()));
    }

    @Override
    public Verdict test(PlacementRequest request, Node node, EvalContext ctx) {
        for (Constraint c : request.job().constraints()) {
            if (!allowed(c, null, node, ctx)) {
                return Verdict.reject(REASON, false);
            }
        }
        for (Constraint c : request.group().constraints()) {
            if (!allowed(c, request.group().name(), node, ctx)) {
                return Verdict.reject(REASON, false);
            }
        }
        return Verdict.PASS;
    }

    private static boolean allowed(Constraint c, String group, Node node, EvalContext ctx) {
        if (!Constraint.OP_DISTINCT_PROPERTY.equals(c.operand())) {
            return true;
        }
        String value = ctx.target(c.lTarget()).resolve(node);
        if (value == null) {
            return false;
        }
        int limit = parseLimit(c.rTarget());
        return ctx.propertyCounts(c.lTarget(), group).current(ctx).count(value) < limit;
    }

    static int parseLimit(String text) {
        if (text == null || text.isBlank()) {
            return 1;
        }
        try {
            return Math.max(1, Integer.parseInt(text.trim()));
        } catch (NumberFormatException e) {
            return 1;
        }
    }
}
