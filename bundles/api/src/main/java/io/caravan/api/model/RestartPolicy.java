package io.caravan.api.model;

import java.time.Duration;

public record RestartPolicy(
        @NanoDuration Duration interval,
        Integer attempts,
        @NanoDuration Duration delay,
        String mode,
        Boolean renderTemplates) {
    public static final String MODE_FAIL = "fail";
    public static final String MODE_DELAY = "delay";
}
