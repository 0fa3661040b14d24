package io.caravan.api.model;

import java.time.Duration;

public record MigrateStrategy(
        Integer maxParallel,
        String healthCheck,
        @NanoDuration Duration minHealthyTime,
        @NanoDuration Duration healthyDeadline) {
}
