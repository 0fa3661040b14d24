package io.caravan.driver.executor;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.caravan.plugin.api.driver.DriverException;
import io.caravan.plugin.api.driver.ExecResult;
import io.caravan.plugin.api.driver.ExecSession;
import io.caravan.plugin.api.driver.ExitResult;
import io.caravan.plugin.api.driver.TaskDriver;
import io.caravan.plugin.api.driver.TaskId;
import io.caravan.plugin.api.driver.TaskStatus;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * A driver whose tasks are the {@link ProcessExecutor}'s: the verbs that only look up the task and act on it are
 * written once here; a driver writes {@code start}, {@code recover}, health and capabilities, and overrides a verb
 * only to add to it (the exec driver adds its cgroup's OOM flag to the exit, and removes the cgroup on destroy).
 */
@ConsumerType
public interface ExecutorBackedDriver extends TaskDriver {

    ProcessExecutor executor();

    @Override
    default CompletionStage<ExitResult> awaitExit(TaskId id) {
        try {
            return executor().task(id).exit();
        } catch (DriverException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** A blank {@code signal} sends Nomad's default kill signal, SIGINT. */
    @Override
    default void stop(TaskId id, Duration timeout, String signal) throws DriverException {
        executor().task(id).stop(signal, timeout);
    }

    @Override
    default void destroy(TaskId id, boolean force) throws DriverException {
        executor().destroy(id, force);
    }

    @Override
    default TaskStatus inspect(TaskId id) throws DriverException {
        return executor().task(id).status();
    }

    @Override
    default void signal(TaskId id, String signal) throws DriverException {
        executor().task(id).signal(signal);
    }

    @Override
    default ExecResult exec(TaskId id, List<String> argv, Duration timeout) throws DriverException {
        return executor().task(id).exec(argv, timeout);
    }

    @Override
    default ExecSession execStreaming(TaskId id, List<String> argv, boolean tty) throws DriverException {
        return executor().task(id).execStreaming(argv, tty);
    }

    @Override
    default List<Long> pids(TaskId id) throws DriverException {
        return executor().task(id).pids();
    }
}
