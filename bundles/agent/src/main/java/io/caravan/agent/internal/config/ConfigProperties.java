package io.caravan.agent.internal.config;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.caravan.api.GoDuration;

/**
 * A configuration block as Config Admin properties: dotted keys down to each value and only types Config Admin
 * carries — String, Long, Double, Boolean and String[]. Key names follow Declarative Services' mapping of an OCD
 * method name ({@code raft_snapshot_threshold()} reads {@code raft.snapshot.threshold}), so Nomad's underscores
 * become dots; keys inside free-form maps ({@code meta}, plugin {@code config}) stay as written
 * ({@code meta.my_rack}). Durations are Go duration strings, as operators write them.
 */
public final class ConfigProperties {
    private ConfigProperties() {
    }

    public static Map<String, Object> of(Map<String, Object> block, Schema.Block schema) {
        Map<String, Object> out = new LinkedHashMap<>();
        block.forEach((name, value) -> collect(out, dsName(name), value, schema.key(name)));
        return out;
    }

    /** A schema name as DS reads it: {@code raft_snapshot_threshold} → {@code raft.snapshot.threshold}. */
    public static String dsName(String key) {
        return key.replace('_', '.');
    }

    private static void collect(Map<String, Object> out, String key, Object value, Schema.Key schema) {
        if (schema instanceof Schema.Block block) {
            Decoder.asMap(value).forEach((name, v) -> collect(out, key + "." + dsName(name), v, block.key(name)));
        } else if (schema instanceof Schema.Labelled labelled && labelled.body() != null) {
            Decoder.asMap(value).forEach((label, body) -> Decoder.asMap(body).forEach((name, v) ->
                    collect(out, key + "." + label + "." + dsName(name), v, labelled.body().key(name))));
        } else {
            put(out, key, value); // attributes; maps and free-form values keep their own keys
        }
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
