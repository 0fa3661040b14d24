package io.caravan.scheduler.internal.placement;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** One target's values on the evaluation's nodes: each distinct value gets a small ID; each node is resolved once. */
public final class NodeValues {
    private final NodeTarget target;
    /** Per node index: value ID + 2; 0 = not resolved yet, 1 = the node has no value. */
    private final int[] byNode;
    private final Map<String, Integer> ids = new HashMap<>();
    private final List<String> names = new ArrayList<>();

    NodeValues(NodeTarget target, int nodes) {
        this.target = target;
        this.byNode = new int[nodes];
    }

    /** The node's value ID, or -1 when it has no value. */
    public int id(RankedNode node) {
        int i = node.index();
        if (i >= 0 && byNode[i] != 0) {
            return byNode[i] - 2;
        }
        String v = target.resolve(node.node());
        int id = v == null ? -1 : ids.computeIfAbsent(v, k -> {
            names.add(k);
            return names.size() - 1;
        });
        if (i >= 0) {
            byNode[i] = id + 2;
        }
        return id;
    }

    public String name(int id) {
        return names.get(id);
    }
}
