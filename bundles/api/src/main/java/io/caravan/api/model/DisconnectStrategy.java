package io.caravan.api.model;

import java.time.Duration;

/** Group {@code disconnect} block. */
public record DisconnectStrategy(
        @NanoDuration Duration lostAfter,
        Boolean replace,
        String reconcile,
        @NanoDuration Duration stopOnClientAfter) {
    public static final String RECONCILE_BEST_SCORE = "best_score";
    public static final String RECONCILE_KEEP_ORIGINAL = "keep_original";
    public static final String RECONCILE_KEEP_REPLACEMENT = "keep_replacement";
    public static final String RECONCILE_LONGEST_RUNNING = "longest_running";
}
