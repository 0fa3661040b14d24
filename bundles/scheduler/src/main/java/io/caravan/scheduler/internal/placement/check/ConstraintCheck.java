package io.caravan.scheduler.internal.placement.check;

import java.util.List;
import java.util.function.Function;

import io.caravan.api.model.Constraint;
import io.caravan.api.model.Node;
import io.caravan.scheduler.internal.placement.CheckScope;
import io.caravan.scheduler.internal.placement.ConstraintMatcher;
import io.caravan.scheduler.internal.placement.EvalContext;
import io.caravan.scheduler.internal.placement.FeasibilityCheck;
import io.caravan.scheduler.internal.placement.NodeTarget;
import io.caravan.scheduler.internal.placement.PlacementRequest;
import io.caravan.scheduler.internal.placement.Verdict;

/**
 * The job's (or the group's and its tasks') constraints hold on the node. A rejection is counted under the
 * constraint's text ({@code "${attr.kernel.name} = linux"}); constraints on unique values escape class caching.
 * {@code distinct_hosts} and {@code distinct_property} are left to their own checks.
 */
public final class ConstraintCheck implements FeasibilityCheck {
    private final CheckScope scope;
    private final Function<PlacementRequest, List<Constraint>> constraints;

    private ConstraintCheck(CheckScope scope, Function<PlacementRequest, List<Constraint>> constraints) {
        this.scope = scope;
        this.constraints = constraints;
    }

    public static ConstraintCheck forJob() {
        return new ConstraintCheck(CheckScope.JOB, r -> r.job().constraints());
    }

    public static ConstraintCheck forTaskGroup() {
        return new ConstraintCheck(CheckScope.TASK_GROUP, PlacementRequest::groupConstraints);
    }

    @Override
    public String name() {
        return scope == CheckScope.JOB ? "job-constraints" : "task-group-constraints";
    }

    @Override
    public CheckScope scope() {
        return scope;
    }

    @Override
    public Verdict test(PlacementRequest request, Node node, EvalContext ctx) {
        for (Constraint c : constraints.apply(request)) {
            String left = ctx.target(c.lTarget()).resolve(node);
            String right = ctx.target(c.rTarget()).resolve(node);
            if (!ConstraintMatcher.matches(c.operand(), left, right, ctx)) {
                return Verdict.reject(ConstraintMatcher.describe(c), !escapes(c, ctx));
            }
        }
        return Verdict.PASS;
    }

    @Override
    public boolean escapes(PlacementRequest request) {
        for (Constraint c : constraints.apply(request)) {
            if (escapes(c, null)) {
                return true;
            }
        }
        return false;
    }

    private static boolean escapes(Constraint c, EvalContext ctx) {
        return target(c.lTarget(), ctx).escapesClass() || target(c.rTarget(), ctx).escapesClass();
    }

    private static NodeTarget target(String text, EvalContext ctx) {
        return ctx == null ? NodeTarget.parse(text) : ctx.target(text);
    }
}
