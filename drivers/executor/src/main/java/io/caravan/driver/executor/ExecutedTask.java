package io.caravan.driver.executor;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;

import io.caravan.plugin.api.driver.DriverException;
import io.caravan.plugin.api.driver.ExecResult;
import io.caravan.plugin.api.driver.ExecSession;
import io.caravan.plugin.api.driver.ExitResult;
import io.caravan.plugin.api.driver.TaskId;
import io.caravan.plugin.api.driver.TaskStatus;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A launched or recovered task. Signals go to the task's own process, never to the wrapper that waits for it; an
 * exit by signal {@code N} reports {@code signal = N} and, as Nomad does, {@code exitCode = 128 + N}.
 */
@ProviderType
public interface ExecutedTask {

    TaskId id();

    /** The task's process id (the wrapper's child). */
    long pid();

    Instant startedAt();

    /** Opaque strings that {@link ProcessExecutor#recover} needs; the driver puts them into its task handle. */
    Map<String, String> state();

    /** Completes once the task has exited. */
    CompletionStage<ExitResult> exit();

    TaskStatus status();

    /** Sends {@code signal} ({@code SIGHUP}, {@code HUP} or a number) to the task's process. */
    void signal(String signal) throws DriverException;

    /**
     * Sends {@code signal} (Nomad's default, SIGINT, if blank), waits up to {@code timeout} for the task to exit,
     * then kills its whole process group; returns once the task has exited.
     */
    void stop(String signal, Duration timeout) throws DriverException;

    /** Runs {@code argv} with the task's environment and working directory, capturing its output. */
    ExecResult exec(List<String> argv, Duration timeout) throws DriverException;

    /** Starts {@code argv} with the task's environment and working directory, streams connected (alloc exec). */
    ExecSession execStreaming(List<String> argv, boolean tty) throws DriverException;

    /** The task's process and its descendants while it runs; empty once it has exited. */
    List<Long> pids();
}
