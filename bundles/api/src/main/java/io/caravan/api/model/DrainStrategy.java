package io.caravan.api.model;

import java.time.Duration;
import java.time.Instant;

/**
 * A node's drain. Go embeds {@code DrainSpec}, so {@code Deadline} and {@code IgnoreSystemJobs} are flat here.
 * {@code Deadline} -1 means "force now", 0 means no deadline.
 */
public record DrainStrategy(
        @NanoDuration Duration deadline,
        boolean ignoreSystemJobs,
        @GoTime Instant forceDeadline,
        @GoTime Instant startedAt) {
    public DrainStrategy {
        deadline = deadline == null ? Duration.ZERO : deadline;
    }
}
