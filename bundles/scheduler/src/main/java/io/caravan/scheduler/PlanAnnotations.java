package io.caravan.scheduler;

import java.util.Map;

/** Nomad's {@code PlanAnnotations}: per task group, what the plan would do (the {@code job plan} output). */
public record PlanAnnotations(Map<String, DesiredUpdates> desiredTgUpdates) {
    public PlanAnnotations {
        desiredTgUpdates = Map.copyOf(desiredTgUpdates);
    }

    /** Nomad's {@code DesiredUpdates}. */
    public record DesiredUpdates(long ignore, long place, long migrate, long stop, long inPlaceUpdate,
                                 long destructiveUpdate, long canary, long preemptions, long reconnectUpdates,
                                 long rescheduleNow, long rescheduleLater, long disconnect) {}
}
