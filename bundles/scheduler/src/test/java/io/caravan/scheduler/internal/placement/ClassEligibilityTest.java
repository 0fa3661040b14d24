package io.caravan.scheduler.internal.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class ClassEligibilityTest {
    private static final List<String> NAMES = List.of("a", "b", "c", "d");

    @Test
    void eligibleForAnyGroupWinsIneligibleOnlyFillsGaps() {
        ClassEligibility e = new ClassEligibility(NAMES);
        e.job().set(0, true);
        e.job().set(1, false);
        e.group("g1").set(2, false);
        e.group("g2").set(2, true);
        e.group("g1").set(3, false);
        assertEquals(Map.of("a", true, "b", false, "c", true, "d", false), e.classes());
        assertEquals(true, e.job().get(0));
        assertNull(e.job().get(3));
        assertEquals(false, e.group("g1").get(3));
        assertNull(e.group("g3").get(40));
    }

    @Test
    void escapedAtAnyLevel() {
        ClassEligibility e = new ClassEligibility(NAMES);
        e.markEscaped("g", false, true);
        assertTrue(e.escaped());
    }
}
