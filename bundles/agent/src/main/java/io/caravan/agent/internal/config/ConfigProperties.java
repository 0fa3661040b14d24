package io.caravan.agent.internal.config;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.caravan.api.GoDuration;

/**
 * A configuration block as Config Admin properties: dotted keys down to each value ({@code meta.rack},
 * {@code config.nested.bam}) and only types Config Admin carries — String, Long, Double, Boolean and String[].
 * Durations are Go duration strings, as operators write them.
 */
public final class ConfigProperties {
    private ConfigProperties() {
    }

    public static Map<String, Object> of(Map<String, Object> block, Schema.Block schema) {
        Map<String, Object> out = new LinkedHashMap<>();
        ConfigDiff.leaves(block, schema).forEach((key, value) -> put(out, key, value));
        return out;
    }

    private static void put(Map<String, Object> out, String key, Object value) {
        if (value instanceof Map<?, ?> map) {
            map.forEach((k, v) -> put(out, key + "." + k, v));
        } else if (value instanceof List<?> list) {
            out.put(key, list.stream().map(String::valueOf).toArray(String[]::new));
        } else if (value instanceof Duration d) {
            out.put(key, GoDuration.format(d));
        } else if (value instanceof BigDecimal n) {
            out.put(key, n.stripTrailingZeros().scale() <= 0 ? (Object) n.longValue() : (Object) n.doubleValue());
        } else if (value != null) {
            out.put(key, value);
        }
    }
}
