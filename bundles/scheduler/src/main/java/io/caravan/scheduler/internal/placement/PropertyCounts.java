package io.caravan.scheduler.internal.placement;

import java.util.HashMap;
import java.util.Map;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.Node;

/**
 * How many live allocations of the job (or of one of its groups) sit on nodes with each value of a property
 * (Nomad's {@code propertySet}, used by spread and distinct_property). Kept current from the proposed state's
 * change log, so each placement costs O(changes) instead of O(allocations).
 */
public final class PropertyCounts {
    private final NodeTarget property;
    private final String group;
    private final Map<String, Integer> counts = new HashMap<>();
    private int seen;

    PropertyCounts(NodeTarget property, String group, EvalContext ctx) {
        this.property = property;
        this.group = group;
        for (Allocation a : ctx.proposed().baseJobAllocs()) {
            add(a, 1, ctx);
        }
    }

    /** Value → count, up to date with the plan so far. Values with no allocation are absent. */
    public Map<String, Integer> current(EvalContext ctx) {
        ProposedState proposed = ctx.proposed();
        if (seen < proposed.jobLogSize()) {
            for (ProposedState.JobChange change : proposed.jobChangesSince(seen)) {
                add(change.alloc(), change.delta(), ctx);
            }
            seen = proposed.jobLogSize();
        }
        return counts;
    }

    private void add(Allocation alloc, int delta, EvalContext ctx) {
        if (group != null && !group.equals(alloc.taskGroup())) {
            return;
        }
        Node node = ctx.node(alloc.nodeId());
        String value = node == null ? null : property.resolve(node);
        if (value != null) {
            counts.merge(value, delta, (a, b) -> a + b == 0 ? null : a + b);
        }
    }
}
