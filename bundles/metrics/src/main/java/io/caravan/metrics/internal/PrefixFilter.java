package io.caravan.metrics.internal;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Nomad's {@code prefix_filter}: rules {@code "+nomad.raft"} (publish) and {@code "-nomad.client"} (drop); the
 * longest rule that prefixes a metric's dotted name decides, and a name no rule covers follows
 * {@code filter_default} (publish unless it is false).
 */
final class PrefixFilter {
    private final TreeMap<String, Boolean> rules = new TreeMap<>();
    private final boolean byDefault;

    /** @throws IllegalArgumentException for a rule that starts with neither {@code +} nor {@code -} */
    PrefixFilter(List<String> rules, boolean byDefault) {
        for (String rule : rules) {
            String r = rule.trim();
            if (r.length() < 2 || (r.charAt(0) != '+' && r.charAt(0) != '-')) {
                throw new IllegalArgumentException("telemetry.prefix_filter: \"" + rule
                        + "\" must start with + (publish) or - (drop)");
            }
            this.rules.put(r.substring(1), r.charAt(0) == '+');
        }
        this.byDefault = byDefault;
    }

    /** Whether every name is published (no rules, {@code filter_default} on): nothing to check. */
    boolean allowsAll() {
        return byDefault && rules.isEmpty();
    }

    boolean allows(String name) {
        // The longest rule prefixing the name: walk down the sorted rules at or below the name.
        for (Map.Entry<String, Boolean> e = rules.floorEntry(name); e != null; e = rules.lowerEntry(e.getKey())) {
            if (name.startsWith(e.getKey())) {
                return e.getValue();
            }
            if (name.charAt(0) != e.getKey().charAt(0)) {   // no shorter rule can prefix it either
                break;
            }
        }
        return byDefault;
    }
}
