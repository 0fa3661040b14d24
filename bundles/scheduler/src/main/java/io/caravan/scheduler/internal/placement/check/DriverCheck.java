package io.caravan.scheduler.internal.placement.check;

import io.caravan.api.model.DriverInfo;
import io.caravan.api.model.Node;
import io.caravan.scheduler.internal.placement.CheckScope;
import io.caravan.scheduler.internal.placement.EvalContext;
import io.caravan.scheduler.internal.placement.FeasibilityCheck;
import io.caravan.scheduler.internal.placement.PlacementRequest;
import io.caravan.scheduler.internal.placement.Verdict;

/**
 * Every task's driver is detected and healthy on the node; without driver info, the legacy attribute
 * {@code driver.<name>} must be true ("1", "true").
 */
public final class DriverCheck implements FeasibilityCheck {
    public static final String REASON = "missing drivers";

    @Override
    public String name() {
        return "drivers";
    }

    @Override
    public CheckScope scope() {
        return CheckScope.TASK_GROUP;
    }

    @Override
    public Verdict test(PlacementRequest request, Node node, EvalContext ctx) {
        for (String driver : request.drivers()) {
            if (!available(node, driver)) {
                return Verdict.reject(REASON, true);
            }
        }
        return Verdict.PASS;
    }

    static boolean available(Node node, String driver) {
        DriverInfo info = node.drivers().get(driver);
        if (info != null) {
            return info.detected() && info.healthy();
        }
        String attr = node.attributes().get("driver." + driver);
        return attr != null && (attr.equals("1") || attr.equalsIgnoreCase("true"));
    }
}
