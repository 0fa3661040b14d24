package io.caravan.api.model;

import java.time.Instant;
import java.util.List;

/** A task's client-side state inside an allocation. {@code Paused} (Enterprise schedules) is kept raw. */
public record TaskState(
        String state,
        boolean failed,
        long restarts,
        @GoTime Instant lastRestart,
        @GoTime Instant startedAt,
        @GoTime Instant finishedAt,
        List<TaskEvent> events,
        Object paused) {
    public static final String STATE_PENDING = "pending";
    public static final String STATE_RUNNING = "running";
    public static final String STATE_DEAD = "dead";

    public TaskState {
        events = Copy.list(events);
        paused = Copy.freeze(paused);
    }
}
