package io.caravan.cli.format;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Why a placement failed, from an {@code AllocMetric} ({@code FailedTGAllocs} of an evaluation or a plan), in
 * Nomad's wording: {@code * Constraint "${attr.kernel.name} = linux": 2 nodes excluded by filter},
 * {@code * Dimension "memory" exhausted on 1 nodes}. Map-valued metrics are listed in key order (Go's order is
 * random), so output is stable.
 */
public final class AllocMetrics {
    private AllocMetrics() {
    }

    /** The failure lines, each starting with {@code prefix}. */
    public static List<String> lines(JsonNode metric, String prefix) {
        List<String> out = new ArrayList<>();
        if (metric.path("NodesEvaluated").asLong() == 0) {
            out.add(prefix + "* No nodes were eligible for evaluation");
        }
        JsonNode available = metric.path("NodesAvailable");
        for (String dc : Json.sortedFieldNames(available)) {
            if (available.get(dc).asLong() == 0) {
                out.add(prefix + "* No nodes are available in datacenter " + Nomad.quote(dc));
            }
        }
        counts(out, metric.path("ClassFiltered"), prefix + "* Class %s: %d nodes excluded by filter");
        counts(out, metric.path("ConstraintFiltered"), prefix + "* Constraint %s: %d nodes excluded by filter");
        long exhausted = metric.path("NodesExhausted").asLong();
        if (exhausted > 0) {
            out.add(prefix + "* Resources exhausted on " + exhausted + " nodes");
        }
        counts(out, metric.path("ClassExhausted"), prefix + "* Class %s exhausted on %d nodes");
        counts(out, metric.path("DimensionExhausted"), prefix + "* Dimension %s exhausted on %d nodes");
        for (JsonNode quota : metric.path("QuotaExhausted")) {
            out.add(prefix + "* Quota limit hit " + Nomad.quote(quota.asText()));
        }
        return out;
    }

    /** {@code (failed to place N allocation(s))}: CoalescedFailures counts the failures beyond the first. */
    public static String failedToPlace(JsonNode metric) {
        long failures = metric.path("CoalescedFailures").asLong() + 1;
        return "failed to place " + failures + (failures > 1 ? " allocations" : " allocation");
    }

    private static void counts(List<String> out, JsonNode map, String format) {
        for (String key : Json.sortedFieldNames(map)) {
            out.add(String.format(format, Nomad.quote(key), map.get(key).asLong()));
        }
    }
}
