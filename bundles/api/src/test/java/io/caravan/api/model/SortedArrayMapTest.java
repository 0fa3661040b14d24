package io.caravan.api.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

import io.caravan.api.json.NomadJson;

class SortedArrayMapTest {
    @Test
    void behavesAsAnImmutableSortedMap() {
        Map<String, Object> source = new HashMap<>();
        source.put("zeta", 1);
        source.put("alpha", null);
        source.put("mid", List.of("x"));
        Map<String, Object> copy = Copy.map(source);
        assertEquals(new TreeMap<>(source), copy);
        assertEquals(copy, new TreeMap<>(source));
        assertEquals(new TreeMap<>(source).hashCode(), copy.hashCode());
        assertEquals(List.of("alpha", "mid", "zeta"), List.copyOf(copy.keySet()));
        assertTrue(copy.containsKey("alpha"));
        assertNull(copy.get("alpha"));
        assertFalse(copy.containsKey("beta"));
        assertNull(copy.get(42));
        assertEquals(1, copy.get("zeta"));
        assertThrows(UnsupportedOperationException.class, () -> copy.put("b", 2));
        assertThrows(UnsupportedOperationException.class, () -> copy.entrySet().iterator().next().setValue(3));
        assertSame(copy, Copy.map(copy), "a copy of an immutable copy is itself");
    }

    @Test
    void numbersAreKeptUnboxedAndKeySetsShared() {
        Map<String, Double> a = Copy.map(new HashMap<>(Map.of("binpack", 0.5, "job-anti-affinity", -1.0)));
        Map<String, Double> b = Copy.map(new HashMap<>(Map.of("job-anti-affinity", 0.25, "binpack", 2.0)));
        assertEquals(Map.of("binpack", 0.5, "job-anti-affinity", -1.0), a);
        assertEquals(Double.valueOf(2.0), b.get("binpack"));
        assertSame(((SortedArrayMap<?>) a).keys, ((SortedArrayMap<?>) b).keys, "one key array for both");
        Map<String, Object> mixed = new HashMap<>();
        mixed.put("n", 1.5);
        mixed.put("s", "text");
        assertEquals(mixed, Copy.map(mixed));
    }

    @Test
    void recordsKeepTheirMapsThroughJson() throws Exception {
        AllocMetric.NodeScoreMeta meta = new AllocMetric.NodeScoreMeta("n1",
                Map.of("binpack", 0.5, "job-anti-affinity", -0.25), 0.125);
        String json = NomadJson.mapper().writeValueAsString(meta);
        assertTrue(json.contains("\"Scores\":{\"binpack\":0.5,\"job-anti-affinity\":-0.25}"), json);
        assertEquals(meta, NomadJson.mapper().readValue(json, AllocMetric.NodeScoreMeta.class));
    }
}
