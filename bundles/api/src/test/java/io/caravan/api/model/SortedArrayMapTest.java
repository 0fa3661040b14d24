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
    void recordsKeepTheirMapsThroughJson() throws Exception {
        AllocMetric.NodeScoreMeta meta = new AllocMetric.NodeScoreMeta("n1",
                Map.of("binpack", 0.5, "job-anti-affinity", -0.25), 0.125);
        String json = NomadJson.mapper().writeValueAsString(meta);
        assertTrue(json.contains("\"Scores\":{\"binpack\":0.5,\"job-anti-affinity\":-0.25}"), json);
        assertEquals(meta, NomadJson.mapper().readValue(json, AllocMetric.NodeScoreMeta.class));
    }
}
