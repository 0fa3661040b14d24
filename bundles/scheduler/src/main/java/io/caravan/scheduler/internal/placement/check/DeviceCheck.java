package io.caravan.scheduler.internal.placement.check;

import java.util.List;
import java.util.Map;

import io.caravan.api.model.Node;
import io.caravan.api.model.RequestedDevice;
import io.caravan.api.model.Task;
import io.caravan.scheduler.internal.placement.CheckScope;
import io.caravan.scheduler.internal.placement.EvalContext;
import io.caravan.scheduler.internal.placement.FeasibilityCheck;
import io.caravan.scheduler.internal.placement.PlacementRequest;
import io.caravan.scheduler.internal.placement.Verdict;

/**
 * Every device a task asks for ({@code "type"}, {@code "vendor/type"} or {@code "vendor/type/name"}) exists on the
 * node with enough healthy instances in one device group. Device constraints and affinities, and which instances
 * other allocations hold, are not checked yet. Not cached per class: devices are not part of the computed class.
 */
public final class DeviceCheck implements FeasibilityCheck {
    public static final String REASON = "missing devices";

    @Override
    public String name() {
        return "devices";
    }

    @Override
    public CheckScope scope() {
        return CheckScope.TRANSIENT;
    }

    @Override
    public boolean appliesTo(PlacementRequest request) {
        for (Task t : request.group().tasks()) {
            if (t.resources() != null && !t.resources().devices().isEmpty()) {
                return true;
            }
        }
        return false;
    }

    @Override
    public Verdict test(PlacementRequest request, Node node, EvalContext ctx) {
        List<Map<String, Object>> offered = node.nodeResources() == null ? List.of() : node.nodeResources().devices();
        for (Task t : request.group().tasks()) {
            if (t.resources() == null) {
                continue;
            }
            for (RequestedDevice wanted : t.resources().devices()) {
                long count = wanted.count() == null ? 1 : wanted.count();
                if (bestHealthy(offered, wanted.name()) < count) {
                    return Verdict.reject(REASON, false);
                }
            }
        }
        return Verdict.PASS;
    }

    /** The most healthy instances any one matching device group offers. */
    static long bestHealthy(List<Map<String, Object>> groups, String wanted) {
        long best = 0;
        for (Map<String, Object> g : groups) {
            if (matches(wanted, str(g.get("Vendor")), str(g.get("Type")), str(g.get("Name")))) {
                long healthy = 0;
                Object instances = g.get("Instances");
                if (instances instanceof List<?>) {
                    for (Object i : (List<?>) instances) {
                        if (i instanceof Map<?, ?> && Boolean.TRUE.equals(((Map<?, ?>) i).get("Healthy"))) {
                            healthy++;
                        }
                    }
                }
                best = Math.max(best, healthy);
            }
        }
        return best;
    }

    /** Nomad's device IDs: {@code type}, {@code vendor/type} or {@code vendor/type/name}. */
    static boolean matches(String wanted, String vendor, String type, String name) {
        String[] parts = wanted == null ? new String[0] : wanted.split("/");
        switch (parts.length) {
            case 1:
                return parts[0].equals(type);
            case 2:
                return parts[0].equals(vendor) && parts[1].equals(type);
            case 3:
                return parts[0].equals(vendor) && parts[1].equals(type) && parts[2].equals(name);
            default:
                return false;
        }
    }

    private static String str(Object o) {
        return o == null ? "" : o.toString();
    }
}
