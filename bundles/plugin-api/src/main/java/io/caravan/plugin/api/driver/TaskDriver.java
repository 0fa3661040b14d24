package io.caravan.plugin.api.driver;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Nomad's driver verbs as an OSGi service. Recovery is first class: a handle returned by {@link #start} is
 * persisted by the client, and {@link #recover} re-attaches to the live task after an agent restart or after the
 * driver bundle itself was updated, so neither kills a workload.
 *
 * <p>Optional abilities (signal, exec) are default methods that throw {@link UnsupportedCapabilityException}; a
 * driver that implements one also declares it in {@link #capabilities()}, which is what the scheduler reads.
 */
@ConsumerType
public interface TaskDriver {

    DriverCapabilities capabilities();

    /** Cheap; polled by the client's driver manager and reported in the node's {@code Drivers} map. */
    DriverHealth health();

    TaskHandle start(TaskConfig task) throws DriverException;

    /** Re-attaches to a task started earlier from its persisted handle. */
    TaskHandle recover(TaskHandle handle) throws DriverException;

    /** Completes once the task has exited, with how it exited. */
    CompletionStage<ExitResult> awaitExit(TaskId id);

    /** Sends {@code signal}, waits up to {@code timeout}, then kills. */
    void stop(TaskId id, Duration timeout, String signal) throws DriverException;

    /** Releases everything the task holds; {@code force} kills it first if it still runs. */
    void destroy(TaskId id, boolean force) throws DriverException;

    TaskStatus inspect(TaskId id) throws DriverException;

    default void signal(TaskId id, String signal) throws DriverException {
        throw new UnsupportedCapabilityException("signal");
    }

    default ExecResult exec(TaskId id, List<String> argv, Duration timeout) throws DriverException {
        throw new UnsupportedCapabilityException("exec");
    }

    /**
     * Starts {@code argv} inside the task's environment (working directory, environment, and the isolation the
     * driver gives its tasks), its streams connected to the caller, on a terminal when {@code tty}: Nomad's
     * {@code alloc exec}.
     */
    default ExecSession execStreaming(TaskId id, List<String> argv, boolean tty) throws DriverException {
        throw new UnsupportedCapabilityException("exec");
    }

    /** The task's processes (its own and their descendants), for resource usage; empty when unknown. */
    default List<Long> pids(TaskId id) throws DriverException {
        return List.of();
    }
}
