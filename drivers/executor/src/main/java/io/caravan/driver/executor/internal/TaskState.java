package io.caravan.driver.executor.internal;

import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;

import io.caravan.plugin.api.driver.DriverException;

/** What is persisted for a task (as {@code TaskHandle.driverState}) and enough to find it again. */
record TaskState(ProcessIdentity wrapper, ProcessIdentity task, Path pidFile, Path exitFile, Instant startedAt) {
    private static final String WRAPPER_PID = "executor.wrapper.pid";
    private static final String WRAPPER_START = "executor.wrapper.start_ticks";
    private static final String TASK_PID = "executor.task.pid";
    private static final String TASK_START = "executor.task.start_ticks";
    private static final String PID_FILE = "executor.pid_file";
    private static final String EXIT_FILE = "executor.exit_file";
    private static final String STARTED_AT = "executor.started_at";

    Map<String, String> toMap() {
        return Map.of(
                WRAPPER_PID, Long.toString(wrapper.pid()),
                WRAPPER_START, Long.toString(wrapper.startTicks()),
                TASK_PID, Long.toString(task.pid()),
                TASK_START, Long.toString(task.startTicks()),
                PID_FILE, pidFile.toString(),
                EXIT_FILE, exitFile.toString(),
                STARTED_AT, startedAt.toString());
    }

    static TaskState fromMap(Map<String, String> state) throws DriverException {
        try {
            return new TaskState(
                    new ProcessIdentity(Long.parseLong(required(state, WRAPPER_PID)),
                            Long.parseLong(required(state, WRAPPER_START))),
                    new ProcessIdentity(Long.parseLong(required(state, TASK_PID)),
                            Long.parseLong(required(state, TASK_START))),
                    Path.of(required(state, PID_FILE)),
                    Path.of(required(state, EXIT_FILE)),
                    Instant.parse(required(state, STARTED_AT)));
        } catch (RuntimeException e) {
            throw new DriverException("invalid executor state " + state + ": " + e.getMessage(), e);
        }
    }

    private static String required(Map<String, String> state, String key) {
        String value = state.get(key);
        if (value == null) {
            throw new IllegalArgumentException("missing " + key);
        }
        return value;
    }
}
