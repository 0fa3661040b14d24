package io.caravan.plugin.api.driver;

import java.time.Instant;

/** A task's state as the driver sees it; {@code completedAt} and {@code exit} are null while it runs. */
public record TaskStatus(TaskId id, State state, Instant startedAt, Instant completedAt, ExitResult exit) {
    public enum State { RUNNING, EXITED, UNKNOWN }
}
