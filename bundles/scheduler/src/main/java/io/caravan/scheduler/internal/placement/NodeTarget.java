package io.caravan.scheduler.internal.placement;

import io.caravan.api.model.Node;
import io.caravan.scheduler.internal.NodeKeys;

/**
 * A constraint, affinity or spread target: a literal, or one of Nomad's node interpolations
 * ({@code ${attr.X}}, {@code ${meta.X}}, {@code ${node.unique.id}}, {@code ${node.unique.name}},
 * {@code ${node.datacenter}}, {@code ${node.class}}, {@code ${node.pool}}). Parsed once, resolved per node.
 */
public final class NodeTarget {
    private enum Kind { LITERAL, NODE_ID, NODE_NAME, DATACENTER, NODE_CLASS, NODE_POOL, ATTR, META, UNKNOWN }

    private final Kind kind;
    private final String key;

    private NodeTarget(Kind kind, String key) {
        this.kind = kind;
        this.key = key;
    }

    public static NodeTarget parse(String target) {
        String t = target == null ? "" : target;
        if (!t.startsWith("${")) {
            return new NodeTarget(Kind.LITERAL, t);
        }
        switch (t) {
            case "${node.unique.id}":
                return new NodeTarget(Kind.NODE_ID, null);
            case "${node.unique.name}":
                return new NodeTarget(Kind.NODE_NAME, null);
            case "${node.datacenter}":
                return new NodeTarget(Kind.DATACENTER, null);
            case "${node.class}":
                return new NodeTarget(Kind.NODE_CLASS, null);
            case "${node.pool}":
                return new NodeTarget(Kind.NODE_POOL, null);
            default:
                break;
        }
        if (t.startsWith("${attr.") && t.endsWith("}")) {
            return new NodeTarget(Kind.ATTR, t.substring(7, t.length() - 1));
        }
        if (t.startsWith("${meta.") && t.endsWith("}")) {
            return new NodeTarget(Kind.META, t.substring(7, t.length() - 1));
        }
        return new NodeTarget(Kind.UNKNOWN, t);
    }

    /** The value on this node, or null when the node has none. */
    public String resolve(Node node) {
        switch (kind) {
            case LITERAL:
                return key;
            case NODE_ID:
                return node.id();
            case NODE_NAME:
                return node.name();
            case DATACENTER:
                return node.datacenter();
            case NODE_CLASS:
                return node.nodeClass();
            case NODE_POOL:
                return node.nodePool();
            case ATTR:
                return node.attributes().get(key);
            case META:
                return node.meta().get(key);
            default:
                return null;
        }
    }

    /** Whether the value differs between nodes of one computed class (so class caching must not be used). */
    public boolean escapesClass() {
        switch (kind) {
            case NODE_ID:
            case NODE_NAME:
                return true;
            case ATTR:
            case META:
                return NodeKeys.isUnique(key);
            default:
                return false;
        }
    }
}
