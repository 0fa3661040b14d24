package io.caravan.scheduler.internal.placement;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

import io.caravan.api.model.Allocation;

/**
 * How many live allocations of the job (or of one of its groups) sit on nodes with each value of a property
 * (Nomad's {@code propertySet}, used by spread and distinct_property), by value ID of the evaluation's
 * {@link NodeValues}. Kept current from the proposed state's change log: each placement costs O(changes), and a
 * scorer reads a count by array index. Allocations on nodes the snapshot does not list count for no value.
 */
public final class PropertyCounts {
    private final NodeValues values;
    private final String group;
    private int[] counts;
    private int seen;

    PropertyCounts(NodeValues values, String group, EvalContext ctx) {
        this.values = values;
        this.group = group;
        this.counts = new int[Math.max(1, values.size())];
        for (Allocation a : ctx.proposed().baseJobAllocs()) {
            add(a, 1, ctx);
        }
    }

    /** Catches up with the plan so far; returns this. */
    public PropertyCounts current(EvalContext ctx) {
        ProposedState proposed = ctx.proposed();
        int size = proposed.jobLogSize();
        if (seen < size) {
            for (ProposedState.JobChange change : proposed.jobChangesSince(seen)) {
                add(change.alloc(), change.delta(), ctx);
            }
            seen = size;
        }
        return this;
    }

    /** The values the counts are kept by. */
    public NodeValues values() {
        return values;
    }

    /** Allocations on nodes with the value of this ID. */
    public int count(int valueId) {
        return valueId >= 0 && valueId < counts.length ? counts[valueId] : 0;
    }

    /** Allocations on nodes with this value. */
    public int count(String value) {
        return count(values.idOf(value));
    }

    /** Value → count for the values that have allocations (Nomad's combined use map). */
    public Map<String, Integer> asMap() {
        Map<String, Integer> out = new LinkedHashMap<>();
        for (int id = 0; id < counts.length; id++) {
            if (counts[id] != 0) {
                out.put(values.name(id), counts[id]);
            }
        }
        return out;
    }

    private void add(Allocation alloc, int delta, EvalContext ctx) {
        if (group != null && !group.equals(alloc.taskGroup())) {
            return;
        }
        int node = ctx.proposed().indexOf(alloc.nodeId());
        int id = node < 0 ? NodeValues.NONE : values.idAt(node);
        if (id == NodeValues.NONE) {
            return;
        }
        if (id >= counts.length) {
            counts = Arrays.copyOf(counts, Math.max(id + 1, counts.length * 2));
        }
        counts[id] += delta;
    }
}
