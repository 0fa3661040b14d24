package io.caravan.client.internal.testing;

import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.caravan.plugin.api.driver.DriverCapabilities;
import io.caravan.plugin.api.driver.DriverException;
import io.caravan.plugin.api.driver.DriverHealth;
import io.caravan.plugin.api.driver.ExitResult;
import io.caravan.plugin.api.driver.TaskConfig;
import io.caravan.plugin.api.driver.TaskDriver;
import io.caravan.plugin.api.driver.TaskHandle;
import io.caravan.plugin.api.driver.TaskId;
import io.caravan.plugin.api.driver.TaskStatus;

/**
 * A small raw_exec-like test driver: {@code config { command = "sh", args = ["-c", "…"] }} runs as a real process
 * with the task's env, output appended to the task's log paths. The handle carries the pid, so a new driver
 * instance (or a new client) can {@link #recover} a live process; the exit code of a recovered process is taken from
 * the {@code exit.code} file the test script may write, else 0.
 */
public final class ProcessTestDriver implements TaskDriver {
    public final List<TaskConfig> started = new CopyOnWriteArrayList<>();
    public final List<TaskHandle> recovered = new CopyOnWriteArrayList<>();
    private final Map<TaskId, CompletableFuture<ExitResult>> exits = new ConcurrentHashMap<>();
    private final Map<TaskId, ProcessHandle> processes = new ConcurrentHashMap<>();
    private final Map<TaskId, Boolean> killed = new ConcurrentHashMap<>();
    private volatile DriverHealth health = DriverHealth.healthy(Map.of("driver.test.version", "1"));

    public void health(DriverHealth health) {
        this.health = health;
    }

    @Override
    public DriverCapabilities capabilities() {
        return new DriverCapabilities(true, false, DriverCapabilities.FS_ISOLATION_NONE);
    }

    @Override
    public DriverHealth health() {
        return health;
    }

    @Override
    @SuppressWarnings("unchecked")
    public TaskHandle start(TaskConfig task) throws DriverException {
        started.add(task);
        List<String> argv = new ArrayList<>();
        argv.add(String.valueOf(task.config().get("command")));
        Object args = task.config().get("args");
        if (args instanceof List<?> list) {
            list.forEach(a -> argv.add(String.valueOf(a)));
        }
        ProcessBuilder pb = new ProcessBuilder(argv).directory(task.taskDir().toFile());
        pb.environment().putAll(task.env());
        if (task.stdoutPath() != null) {
            pb.redirectOutput(Redirect.appendTo(task.stdoutPath().toFile()));
            pb.redirectError(Redirect.appendTo(task.stderrPath().toFile()));
        }
        Process process;
        try {
            process = pb.start();
        } catch (IOException e) {
            throw new DriverException("failed to start: " + e.getMessage(), e);
        }
        processes.put(task.id(), process.toHandle());
        CompletableFuture<ExitResult> exit = new CompletableFuture<>();
        exits.put(task.id(), exit);
        process.onExit().thenAccept(p -> exit.complete(result(task.id(), p.exitValue())));
        return new TaskHandle(task.id(), "test", Instant.now(), Map.of("pid", Long.toString(process.pid())));
    }

    private ExitResult result(TaskId id, int code) {
        boolean wasKilled = killed.getOrDefault(id, false);
        return code > 128 && wasKilled ? new ExitResult(0, code - 128, false, null) : new ExitResult(code, 0, false, null);
    }

    @Override
    public TaskHandle recover(TaskHandle handle) throws DriverException {
        long pid = Long.parseLong(handle.driverState().get("pid"));
        ProcessHandle process = ProcessHandle.of(pid).orElseThrow(() -> new DriverException("process " + pid + " is gone"));
        recovered.add(handle);
        processes.put(handle.id(), process);
        CompletableFuture<ExitResult> exit = new CompletableFuture<>();
        exits.put(handle.id(), exit);
        process.onExit().thenAccept(p -> exit.complete(new ExitResult(0, killed.getOrDefault(handle.id(), false) ? 15 : 0,
                false, null)));
        return handle;
    }

    @Override
    public CompletionStage<ExitResult> awaitExit(TaskId id) {
        CompletableFuture<ExitResult> exit = exits.get(id);
        return exit != null ? exit : CompletableFuture.failedFuture(new IllegalStateException("unknown task " + id));
    }

    @Override
    public void stop(TaskId id, Duration timeout, String signal) {
        ProcessHandle process = processes.get(id);
        if (process == null) {
            return;
        }
        killed.put(id, true);
        process.destroy();
        try {
            process.onExit().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            process.destroyForcibly();
        }
    }

    @Override
    public void destroy(TaskId id, boolean force) {
        ProcessHandle process = processes.remove(id);
        if (process != null && force) {
            process.destroyForcibly();
        }
    }

    @Override
    public void signal(TaskId id, String signal) throws DriverException {
        ProcessHandle process = processes.get(id);
        if (process == null) {
            throw new DriverException("unknown task " + id);
        }
        try {
            int rc = new ProcessBuilder("kill", "-" + signal.replaceFirst("^SIG", ""), Long.toString(process.pid()))
                    .start().waitFor();
            if (rc != 0) {
                throw new DriverException("kill exited " + rc);
            }
        } catch (IOException e) {
            throw new DriverException(e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DriverException("interrupted");
        }
    }

    @Override
    public TaskStatus inspect(TaskId id) {
        ProcessHandle process = processes.get(id);
        return new TaskStatus(id, process != null && process.isAlive() ? TaskStatus.State.RUNNING
                : TaskStatus.State.EXITED, null, null, null);
    }

    /** Test helper: the live process of a task. */
    public ProcessHandle process(TaskId id) {
        return processes.get(id);
    }
}
