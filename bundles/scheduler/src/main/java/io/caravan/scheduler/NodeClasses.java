package io.caravan.scheduler;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;

import io.caravan.api.model.DriverInfo;
import io.caravan.api.model.Node;
import io.caravan.scheduler.internal.NodeKeys;

/**
 * Nomad's computed node class: nodes that agree on everything placement can see (except unique values) share a
 * class, so the scheduler evaluates class-wide feasibility once per class. The server stores the result in
 * {@code Node.ComputedClass} when a node registers or updates.
 */
public final class NodeClasses {
    private static final long FNV_OFFSET = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;

    private NodeClasses() {
    }

    /**
     * A stable {@code "v1:<hash>"} over datacenter, node class, node pool, attributes and meta (keys with a
     * {@code unique} segment left out) and each driver's detected/healthy state.
     */
    public static String computedClass(Node node) {
        StringBuilder canonical = new StringBuilder(256)
                .append("dc=").append(nullToEmpty(node.datacenter()))
                .append("\u0000class=").append(nullToEmpty(node.nodeClass()))
                .append("\u0000pool=").append(nullToEmpty(node.nodePool()));
        appendFiltered(canonical, "attr.", node.attributes());
        appendFiltered(canonical, "meta.", node.meta());
        for (Map.Entry<String, DriverInfo> e : new TreeMap<>(node.drivers()).entrySet()) {
            DriverInfo info = e.getValue();
            canonical.append("\u0000driver.").append(e.getKey()).append('=')
                    .append(info != null && info.detected()).append('/').append(info != null && info.healthy());
        }
        return "v1:" + Long.toUnsignedString(fnv1a(canonical.toString()));
    }

    private static void appendFiltered(StringBuilder out, String prefix, Map<String, String> values) {
        for (Map.Entry<String, String> e : new TreeMap<>(values).entrySet()) {
            if (!NodeKeys.isUnique(e.getKey())) {
                out.append('\u0000').append(prefix).append(e.getKey()).append('=').append(nullToEmpty(e.getValue()));
            }
        }
    }

    private static long fnv1a(String text) {
        long hash = FNV_OFFSET;
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            hash ^= (b & 0xff);
            hash *= FNV_PRIME;
        }
        return hash;
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }
}
