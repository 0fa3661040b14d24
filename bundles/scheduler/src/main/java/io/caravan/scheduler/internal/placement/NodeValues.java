package io.caravan.scheduler.internal.placement;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.caravan.api.model.Node;

/**
 * One target's values on the evaluation's nodes: each distinct value gets a small ID, and every node of the snapshot
 * is resolved once, up front, so that scorers weighing every candidate of every placement (spread) read an int array
 * by node index instead of hashing strings.
 */
public final class NodeValues {
    /** What {@link #idAt} answers for a node without the value. */
    public static final int NONE = -1;

    private final NodeTarget target;
    /** Per node index: the value ID, or {@link #NONE}. */
    private final int[] byNode;
    private final Map<String, Integer> ids = new HashMap<>();
    private final List<String> names = new ArrayList<>();

    NodeValues(NodeTarget target, List<Node> nodes) {
        this.target = target;
        this.byNode = new int[nodes.size()];
        for (int i = 0; i < byNode.length; i++) {
            byNode[i] = intern(target.resolve(nodes.get(i)));
        }
    }

    /** The value ID of the node at this index of the proposed state, or {@link #NONE}. */
    public int idAt(int nodeIndex) {
        return byNode[nodeIndex];
    }

    /** The node's value ID, or {@link #NONE}; nodes outside the snapshot are resolved (and their value interned). */
    public int id(RankedNode node) {
        return node.index() >= 0 ? byNode[node.index()] : intern(target.resolve(node.node()));
    }

    /** The ID of a value, or {@link #NONE} when no node has it. */
    public int idOf(String value) {
        Integer id = value == null ? null : ids.get(value);
        return id == null ? NONE : id;
    }

    /** How many distinct values were met: IDs are {@code 0 .. size() - 1}. */
    public int size() {
        return names.size();
    }

    public String name(int id) {
        return names.get(id);
    }

    private int intern(String value) {
        if (value == null) {
            return NONE;
        }
        Integer id = ids.get(value);
        if (id == null) {
            id = names.size();
            ids.put(value, id);
            names.add(value);
        }
        return id;
    }
}
