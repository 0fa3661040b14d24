package io.caravan.api.model;

import java.time.Duration;

/** {@code update} block. At job level only {@code Stagger} and {@code MaxParallel} matter; the rest is merged into groups. */
public record UpdateStrategy(
        @NanoDuration Duration stagger,
        Integer maxParallel,
        String healthCheck,
        @NanoDuration Duration minHealthyTime,
        @NanoDuration Duration healthyDeadline,
        @NanoDuration Duration progressDeadline,
        Integer canary,
        Boolean autoRevert,
        Boolean autoPromote) {
    public static final String HEALTH_CHECKS = "checks";
    public static final String HEALTH_TASK_STATES = "task_states";
    public static final String HEALTH_MANUAL = "manual";
}
