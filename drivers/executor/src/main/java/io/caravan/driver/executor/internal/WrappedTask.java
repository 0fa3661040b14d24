package io.caravan.driver.executor.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.caravan.driver.executor.ExecutedTask;
import io.caravan.plugin.api.driver.DriverException;
import io.caravan.plugin.api.driver.ExecResult;
import io.caravan.plugin.api.driver.ExecSession;
import io.caravan.plugin.api.driver.ExitResult;
import io.caravan.plugin.api.driver.TaskId;
import io.caravan.plugin.api.driver.TaskStatus;

/**
 * A task under its wrapper. It has exited once the wrapper has: then the exit file tells how. Whoever notices first
 * completes {@link #exit()} — {@code Process.onExit} while the agent is the wrapper's parent, the executor's poller
 * after a recovery, or a caller waiting in {@link #stop}.
 */
final class WrappedTask implements ExecutedTask {
    private static final Duration POLL = Duration.ofMillis(20);
    private static final Duration KILL_WAIT = Duration.ofSeconds(5);
    /** Nomad's default {@code kill_signal}. */
    static final String DEFAULT_KILL_SIGNAL = "SIGINT";

    private final TaskId id;
    private final TaskState state;
    private final Kill kill;
    private final CompletableFuture<ExitResult> exit = new CompletableFuture<>();
    private volatile Instant completedAt;
    private volatile boolean killedByExecutor;

    WrappedTask(TaskId id, TaskState state, Kill kill) {
        this.id = id;
        this.state = state;
        this.kill = kill;
    }

    @Override
    public TaskId id() {
        return id;
    }

    @Override
    public long pid() {
        return state.task().pid();
    }

    @Override
    public Instant startedAt() {
        return state.startedAt();
    }

    @Override
    public Map<String, String> state() {
        return state.toMap();
    }

    TaskState taskState() {
        return state;
    }

    @Override
    public CompletionStage<ExitResult> exit() {
        return exit.minimalCompletionStage();
    }

    boolean exited() {
        return exit.isDone();
    }

    @Override
    public TaskStatus status() {
        ExitResult result = exit.getNow(null);
        return result == null
                ? new TaskStatus(id, TaskStatus.State.RUNNING, startedAt(), null, null)
                : new TaskStatus(id, TaskStatus.State.EXITED, startedAt(), completedAt, result);
    }

    /** Completes {@link #exit()} if the wrapper is gone; cheap enough to call every second for every task. */
    void checkExit() {
        if (!exit.isDone() && !state.wrapper().alive()) {
            wrapperEnded();
        }
    }

    /** Called once the wrapper has ended, by whoever noticed. */
    void wrapperEnded() {
        if (exit.isDone()) {
            return;
        }
        ExitResult result = readExitFile();
        if (result == null) {
            result = killedByExecutor ? ShellExit.killed() : ShellExit.lost();
        }
        completedAt = exitFileTime();
        exit.complete(result);
    }

    /** When the wrapper wrote the exit status: right for a task that ended while no agent was watching. */
    private Instant exitFileTime() {
        try {
            return Files.getLastModifiedTime(state.exitFile()).toInstant();
        } catch (IOException e) {
            return Instant.now();
        }
    }

    private ExitResult readExitFile() {
        try {
            String text = Files.readString(state.exitFile()).trim();
            return text.isEmpty() ? null : ShellExit.of(Integer.parseInt(text));
        } catch (IOException | NumberFormatException e) {
            return null;
        }
    }

    @Override
    public void signal(String signal) throws DriverException {
        if (!state.task().alive()) {
            throw new DriverException("task " + id + " is not running");
        }
        kill.process(pid(), signal);
    }

    @Override
    public void stop(String signal, Duration timeout) throws DriverException {
        if (exited()) {
            return;
        }
        if (state.task().alive()) {
            try {
                kill.process(pid(), signal == null || signal.isBlank() ? DEFAULT_KILL_SIGNAL : signal);
            } catch (DriverException e) {
                if (state.task().alive()) {
                    throw e;
                } // else it ended meanwhile
            }
            if (awaitExit(timeout)) {
                return;
            }
        }
        killNow();
    }

    /**
     * SIGKILL to the whole process group: the task, whatever it started, and the wrapper, which then records
     * nothing, so the exit is reported as signal 9 because this executor sent it. (Killing the task alone first
     * would not help a forking isolation: {@code unshare} fails to pass on a SIGKILL and exits 1.)
     */
    void killNow() throws DriverException {
        killedByExecutor = true;
        killGroup();
        if (!awaitExit(KILL_WAIT)) {
            throw new DriverException("task " + id + " did not exit after SIGKILL");
        }
    }

    /**
     * Kills what is left of the task's process group. The group id is the wrapper's pid, and the kernel does not
     * hand out a pid that still names a group, so the group is ours unless the pid now belongs to a new process.
     */
    void killGroup() {
        if (state.wrapper().pid() > 0 && state.wrapper().pidNotReused()) {
            kill.group(state.wrapper().pid(), "KILL");
        }
    }

    boolean awaitExit(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            checkExit();
            if (exited()) {
                return true;
            }
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            try {
                Thread.sleep(POLL.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return exited();
            }
        }
    }

    @Override
    public ExecResult exec(List<String> argv, Duration timeout) throws DriverException {
        if (!state.task().alive()) {
            throw new DriverException("task " + id + " is not running");
        }
        return TaskExec.inEnvironmentOf(pid(), argv, timeout);
    }

    @Override
    public ExecSession execStreaming(List<String> argv, boolean tty) throws DriverException {
        if (!state.task().alive()) {
            throw new DriverException("task " + id + " is not running");
        }
        return StreamingExec.start(pid(), argv, tty);
    }

    @Override
    public List<Long> pids() {
        return state.task().alive() ? ProcStat.tree(pid()) : List.of();
    }

    void deleteFiles() {
        try {
            Files.deleteIfExists(state.pidFile());
            Files.deleteIfExists(state.exitFile());
        } catch (IOException e) {
            // a leftover file in the task's private directory harms nothing
        }
    }
}
