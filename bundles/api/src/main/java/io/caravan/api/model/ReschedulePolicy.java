package io.caravan.api.model;

import java.time.Duration;

public record ReschedulePolicy(
        Integer attempts,
        @NanoDuration Duration interval,
        @NanoDuration Duration delay,
        String delayFunction,
        @NanoDuration Duration maxDelay,
        Boolean unlimited) {
    public static final String DELAY_CONSTANT = "constant";
    public static final String DELAY_EXPONENTIAL = "exponential";
    public static final String DELAY_FIBONACCI = "fibonacci";
}
