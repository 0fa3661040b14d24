package io.caravan.scheduler.internal.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

class ClassEligibilityTest {
    @Test
    void eligibleForAnyGroupWinsIneligibleOnlyFillsGaps() {
        ClassEligibility e = new ClassEligibility();
        e.setJob("a", true);
        e.setJob("b", false);
        e.setGroup("g1", "c", false);
        e.setGroup("g2", "c", true);
        e.setGroup("g1", "d", false);
        assertEquals(Map.of("a", true, "b", false, "c", true, "d", false), e.classes());
    }

    @Test
    void escapedAtAnyLevel() {
        ClassEligibility e = new ClassEligibility();
        e.markEscaped("g", false, true);
        assertTrue(e.escaped());
    }
}
