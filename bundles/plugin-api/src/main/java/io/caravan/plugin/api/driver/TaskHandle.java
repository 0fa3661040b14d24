package io.caravan.plugin.api.driver;

import java.time.Instant;
import java.util.Map;

/**
 * What a client persists to find a running task again: opaque driver state (for example a pid and its start
 * time) that {@link TaskDriver#recover} understands.
 */
public record TaskHandle(TaskId id, String driver, Instant startedAt, Map<String, String> driverState) {
    public TaskHandle {
        driverState = Map.copyOf(driverState);
    }
}
