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
        e.setJob(0, true);
        e.setJob(1, false);
        e.setGroup("g1", 2, false);
        e.setGroup("g2", 2, true);
        e.setGroup("g1", 3, false);
        assertEquals(Map.of("a", true, "b", false, "c", true, "d", false), e.classes());
        assertEquals(true, e.jobVerdict(0));
        assertNull(e.jobVerdict(3));
        assertEquals(false, e.groupVerdict("g1", 3));
        assertNull(e.groupVerdict("g3", 0));
    }

    @Test
    void escapedAtAnyLevel() {
        ClassEligibility e = new ClassEligibility(NAMES);
        e.markEscaped("g", false, true);
        assertTrue(e.escaped());
    }
}
