package io.caravan.agent.internal.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Lays a later configuration over an earlier one as Nomad merges its files: a value set later wins; maps merge
 * key by key; lists append (unless the schema says {@code merge=replace}); blocks merge recursively, labelled
 * blocks label by label; free-form values are replaced whole.
 */
public final class Merger {
    private Merger() {
    }

    public static Map<String, Object> merge(Map<String, Object> earlier, Map<String, Object> later,
                                            Schema.Block schema) {
        Map<String, Object> out = new LinkedHashMap<>(earlier);
        later.forEach((name, value) -> {
            Object before = out.get(name);
            Schema.Key key = schema.key(name);
            out.put(name, before == null || key == null ? value : mergeValue(before, value, key));
        });
        return out;
    }

    private static Object mergeValue(Object before, Object after, Schema.Key key) {
        if (key instanceof Schema.Block block) {
            return merge(Decoder.asMap(before), Decoder.asMap(after), block);
        }
        if (key instanceof Schema.Labelled labelled) {
            Map<String, Object> out = new LinkedHashMap<>(Decoder.asMap(before));
            Decoder.asMap(after).forEach((label, body) -> out.merge(label, body, (a, b) -> labelled.body() == null
                    ? b : merge(Decoder.asMap(a), Decoder.asMap(b), labelled.body())));
            return out;
        }
        Schema.Attr attr = (Schema.Attr) key;
        if (attr.type() == Schema.Type.MAP) {
            Map<String, Object> out = new LinkedHashMap<>(Decoder.asMap(before));
            out.putAll(Decoder.asMap(after));
            return out;
        }
        if (attr.type() == Schema.Type.LIST && !"replace".equals(attr.options().get("merge"))) {
            List<Object> out = new ArrayList<>((List<?>) before);
            out.addAll((List<?>) after);
            return List.copyOf(out);
        }
        return after;
    }
}
