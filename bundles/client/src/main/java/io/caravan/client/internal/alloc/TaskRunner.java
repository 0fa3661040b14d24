package io.caravan.client.internal.alloc;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.caravan.api.model.AllocatedResources;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Task;
import io.caravan.api.model.TaskEvent;
import io.caravan.api.model.TaskGroup;
import io.caravan.api.model.TaskLifecycle;
import io.caravan.api.model.TaskState;
import io.caravan.client.internal.hooks.ArtifactHook;
import io.caravan.client.internal.hooks.TaskControl;
import io.caravan.client.internal.hooks.TaskHook;
import io.caravan.client.internal.hooks.TaskHookContext;
import io.caravan.plugin.api.driver.DriverCapabilities;
import io.caravan.plugin.api.driver.DriverException;
import io.caravan.plugin.api.driver.ExecResult;
import io.caravan.plugin.api.driver.ExecSession;
import io.caravan.plugin.api.driver.ExitResult;
import io.caravan.plugin.api.driver.TaskConfig;
import io.caravan.plugin.api.driver.TaskDriver;
import io.caravan.plugin.api.driver.TaskHandle;
import io.caravan.plugin.api.driver.TaskId;
import io.caravan.plugin.api.driver.UnsupportedCapabilityException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one task of an allocation through its life (Nomad's taskrunner): prestart hooks, driver start, wait for
 * exit, restart policy, kill. Waiting costs no thread: the driver's {@code awaitExit} stage calls back. Blocking
 * calls (hooks, {@code start}, {@code stop}) run on the client's worker pool; restart delays on its scheduler.
 *
 * <p>Every start attempt and every attach gets a new generation number, so a late callback from an earlier attempt,
 * or from a driver that has since left (the task is then <em>parked</em>), changes nothing. A parked task keeps
 * its handle; when a driver of that name binds again, the task is {@code recover()}ed.
 */
public final class TaskRunner {
    static final int MAX_EVENTS = 10;
    static final Duration DEFAULT_KILL_TIMEOUT = Duration.ofSeconds(5);
    static final String DEFAULT_KILL_SIGNAL = "SIGINT";

    private static final Logger LOG = LoggerFactory.getLogger(TaskRunner.class);

    private final AllocRunner parent;
    private final RunnerServices services;
    private final TaskEvents events;
    private final Task task;
    private final TaskId id;
    private final List<TaskHook> hooks;
    private final RestartTracker restarts;
    private final Object recoverLock = new Object();

    // Guarded by this.
    private String state = TaskState.STATE_PENDING;
    private boolean failed;
    private long restartCount;
    private Instant lastRestart;
    private Instant startedAt;
    private Instant finishedAt;
    private final Deque<TaskEvent> history = new ArrayDeque<>();
    private TaskHandle handle;
    private long generation;
    private boolean gateOpen;
    private boolean starting;
    private boolean killing;
    private boolean parked;
    private boolean restartRequested;
    private boolean stopHooksRun;
    private ScheduledFuture<?> pendingRestart;
    private TaskHookContext lastContext;

    TaskRunner(AllocRunner parent, RunnerServices services, Task task, List<TaskHook> hooks, String jobType,
               TaskState restoredState, TaskHandle restoredHandle) {
        this.parent = parent;
        this.services = services;
        this.events = services.events();
        this.task = task;
        this.id = new TaskId(parent.allocId(), task.name());
        this.hooks = List.copyOf(hooks);
        this.restarts = new RestartTracker(task.restartPolicy() != null ? task.restartPolicy()
                : group().map(g -> g.restartPolicy()).orElse(null), jobType, task.lifecycle(), services.clock(),
                services.random());
        if (restoredState != null) {
            state = restoredState.state();
            failed = restoredState.failed();
            restartCount = restoredState.restarts();
            lastRestart = restoredState.lastRestart();
            startedAt = restoredState.startedAt();
            finishedAt = restoredState.finishedAt();
            history.addAll(restoredState.events());
            handle = restoredHandle;
            parked = restoredHandle != null; // re-attached by start() or when its driver binds
        } else {
            history.add(events.received());
        }
    }

    private Optional<TaskGroup> group() {
        Allocation alloc = parent.alloc();
        return alloc.job() == null ? Optional.empty() : alloc.job().taskGroups().stream()
                .filter(g -> g.name().equals(alloc.taskGroup())).findFirst();
    }

    public String name() {
        return task.name();
    }

    public Task task() {
        return task;
    }

    String lifecycleHook() {
        TaskLifecycle lc = task.lifecycle();
        return lc == null || lc.hook() == null ? "" : lc.hook();
    }

    boolean sidecar() {
        return task.lifecycle() != null && task.lifecycle().sidecar();
    }

    boolean leader() {
        return task.leader();
    }

    boolean prestart() {
        return TaskLifecycle.HOOK_PRESTART.equals(lifecycleHook());
    }

    boolean poststart() {
        return TaskLifecycle.HOOK_POSTSTART.equals(lifecycleHook());
    }

    boolean poststop() {
        return TaskLifecycle.HOOK_POSTSTOP.equals(lifecycleHook());
    }

    boolean main() {
        return lifecycleHook().isEmpty();
    }

    public synchronized TaskState state() {
        return new TaskState(state, failed, restartCount, lastRestart, startedAt, finishedAt, List.copyOf(history),
                null);
    }

    synchronized boolean dead() {
        return TaskState.STATE_DEAD.equals(state);
    }

    synchronized boolean gateOpen() {
        return gateOpen;
    }

    synchronized TaskHandle handle() {
        return handle;
    }

    // ---------------------------------------------------------------------------------------------- lifecycle

    /** The task's start condition is met (lifecycle ordering): start it, or re-attach to a restored one. */
    synchronized void open() {
        if (gateOpen) {
            return;
        }
        gateOpen = true;
        if (dead()) {
            return;
        }
        if (handle != null) {
            services.workers().execute(this::recover);
        } else {
            services.workers().execute(this::attemptStart);
        }
    }

    private void attemptStart() {
        long gen;
        TaskHookContext ctx;
        synchronized (this) {
            if (killing || dead() || starting) {
                return;
            }
            starting = true;
            gen = ++generation;
            ctx = new TaskHookContext(parent.alloc(), task, services.node().get(), parent.allocDir(), events,
                    this::emit);
            ctx.control(control);
            lastContext = ctx;
        }
        String current = "";
        try {
            for (TaskHook hook : hooks) {
                if (hook instanceof TaskHook.Prestart prestart) {
                    current = hook.name();
                    prestart.prestart(ctx);
                }
            }
        } catch (ArtifactHook.ArtifactException e) {
            startFailed(gen, null, true); // the hook already emitted "Failed Artifact Download"
            return;
        } catch (Exception e) {
            LOG.atError().addKeyValue("alloc_id", id.allocId()).addKeyValue("task", id.taskName())
                    .addKeyValue("hook", current).addKeyValue("error", e.toString()).log("prestart failed");
            // Nomad's emitHookError: "Task hook failed" with "<hook>: <error>"
            startFailed(gen, events.hookFailed(current + ": " + (e.getMessage() == null ? e : e.getMessage())),
                    true);
            return;
        }
        boolean killedDuringSetup;
        synchronized (this) {
            killedDuringSetup = killing;
            starting = !killing;
        }
        if (killedDuringSetup) {
            finish(null); // killed while the hooks ran: never start it
            return;
        }
        Optional<TaskDriver> maybeDriver = services.drivers().apply(task.driver());
        if (maybeDriver.isEmpty()) {
            startFailed(gen, events.driverFailure("failed to get driver \"" + task.driver()
                    + "\": plugin not found"), true);
            return;
        }
        TaskDriver driver = maybeDriver.get();
        TaskHandle started;
        try {
            started = driver.start(taskConfig(ctx));
        } catch (DriverException | RuntimeException e) {
            LOG.atError().addKeyValue("alloc_id", id.allocId()).addKeyValue("task", id.taskName())
                    .addKeyValue("error", e.toString()).log("running driver failed");
            startFailed(gen, events.driverFailure(e.getMessage() == null ? e.toString() : e.getMessage()), true);
            return;
        }
        boolean stopNow;
        synchronized (this) {
            starting = false;
            handle = started;
            parked = false;
            stopNow = killing;
        }
        LOG.atInfo().addKeyValue("alloc_id", id.allocId()).addKeyValue("task", id.taskName()).log("task started");
        updateState(TaskState.STATE_RUNNING, events.started());
        for (TaskHook hook : hooks) {
            if (hook instanceof TaskHook.Poststart poststart) {
                try {
                    poststart.poststart(ctx);
                } catch (RuntimeException e) {
                    LOG.atWarn().addKeyValue("task", id.taskName()).addKeyValue("hook", hook.name())
                            .addKeyValue("error", e.toString()).log("poststart hook failed");
                }
            }
        }
        attach(gen, driver);
        if (stopNow) {
            emit(events.killing(killTimeout()));
            services.workers().execute(() -> stopTask(driver));
        }
    }

    private TaskConfig taskConfig(TaskHookContext ctx) {
        AllocatedResources.TaskResources res = parent.alloc().allocatedResources() == null ? null
                : parent.alloc().allocatedResources().tasks().get(task.name());
        long cpu = res != null && res.cpu() != null ? res.cpu().cpuShares()
                : task.resources() != null && task.resources().cpu() != null ? task.resources().cpu() : 0;
        long mem = res != null && res.memory() != null ? res.memory().memoryMb()
                : task.resources() != null && task.resources().memoryMb() != null ? task.resources().memoryMb() : 0;
        long memMax = res != null && res.memory() != null ? res.memory().memoryMaxMb() : 0;
        Allocation alloc = parent.alloc();
        return new TaskConfig(id, alloc.jobId(), ctx.config(), ctx.env(), task.user(), ctx.taskDir(),
                ctx.stdoutPath(), ctx.stderrPath(), cpu, mem, memMax);
    }

    private void attach(long gen, TaskDriver driver) {
        driver.awaitExit(id).whenComplete((result, error) ->
                services.workers().execute(() -> exited(gen, driver, result, error)));
    }

    private void exited(long gen, TaskDriver driver, ExitResult result, Throwable error) {
        boolean wasKilled;
        boolean userRestart;
        synchronized (this) {
            if (gen != generation || parked) {
                return; // an earlier attempt, or a driver that has left: not this task's news any more
            }
            handle = null;
            wasKilled = killing;
            userRestart = restartRequested;
            restartRequested = false;
        }
        ExitResult exit = result != null ? result
                : new ExitResult(-1, 0, false, error == null ? "unknown" : String.valueOf(error.getMessage()));
        try {
            driver.destroy(id, false);
        } catch (DriverException | RuntimeException e) {
            LOG.atDebug().addKeyValue("task", id.taskName()).addKeyValue("error", e.toString())
                    .log("driver destroy after exit failed");
        }
        LOG.atInfo().addKeyValue("alloc_id", id.allocId()).addKeyValue("task", id.taskName())
                .addKeyValue("exit_code", exit.exitCode()).log("task exited");
        emit(events.terminated(exit));
        if (wasKilled) {
            // Current Nomad records a normal kill as Killing then Terminated, with no "Killed" event.
            finish(null);
        } else if (userRestart) {
            outcome(gen, new RestartTracker.Outcome(RestartTracker.Decision.RESTART, Duration.ZERO, ""));
        } else {
            outcome(gen, restarts.exited(exit));
        }
    }

    private void startFailed(long gen, TaskEvent event, boolean recoverable) {
        synchronized (this) {
            starting = false;
        }
        if (event != null) {
            emit(event);
        }
        boolean killed;
        synchronized (this) {
            killed = killing;
        }
        if (killed) {
            finish(null);
            return;
        }
        outcome(gen, restarts.startFailed(recoverable));
    }

    private void outcome(long gen, RestartTracker.Outcome outcome) {
        switch (outcome.decision()) {
            case RESTART -> {
                LOG.atInfo().addKeyValue("alloc_id", id.allocId()).addKeyValue("task", id.taskName())
                        .addKeyValue("reason", outcome.reason()).addKeyValue("delay", outcome.delay())
                        .log("restarting task");
                updateState(TaskState.STATE_PENDING, events.restarting(outcome.delay(), outcome.reason()));
                boolean killedMeanwhile;
                synchronized (this) {
                    killedMeanwhile = killing;
                    if (gen == generation && !killing) {
                        pendingRestart = services.scheduler().schedule(
                                () -> services.workers().execute(this::attemptStart),
                                outcome.delay().toNanos(), TimeUnit.NANOSECONDS);
                    }
                }
                if (killedMeanwhile) {
                    finish(null); // a kill that raced with the exit: do not restart
                }
            }
            case NOT_RESTARTING -> {
                LOG.atInfo().addKeyValue("alloc_id", id.allocId()).addKeyValue("task", id.taskName())
                        .addKeyValue("reason", outcome.reason()).log("not restarting task");
                finish(events.notRestarting(outcome.reason()));
            }
            case TERMINATED, KILLED -> finish(null);
        }
    }

    /** Dead for good: the final event, then the stop hooks (once). */
    private void finish(TaskEvent event) {
        updateState(TaskState.STATE_DEAD, event);
        TaskHookContext ctx;
        synchronized (this) {
            if (stopHooksRun) {
                return;
            }
            stopHooksRun = true;
            ctx = lastContext;
        }
        if (ctx == null) {
            ctx = new TaskHookContext(parent.alloc(), task, services.node().get(), parent.allocDir(), events,
                    this::emit);
        }
        for (TaskHook hook : hooks) {
            if (hook instanceof TaskHook.Stop stop) {
                try {
                    stop.stop(ctx);
                } catch (RuntimeException e) {
                    LOG.atWarn().addKeyValue("task", id.taskName()).addKeyValue("hook", hook.name())
                            .addKeyValue("error", e.toString()).log("stop hook failed");
                }
            }
        }
    }

    /**
     * Kills the task: {@code reason} (e.g. "Sibling Task Failed") is recorded first. A running task gets its kill
     * signal and {@code kill_timeout}; a task that never started, or waits to restart, is simply dead.
     */
    void kill(TaskEvent reason) {
        boolean running;
        boolean inStart;
        synchronized (this) {
            if (killing || dead()) {
                return;
            }
            killing = true;
            if (pendingRestart != null) {
                pendingRestart.cancel(false);
            }
            running = handle != null && !parked;
            inStart = starting;
        }
        if (reason != null) {
            emit(reason);
        }
        if (running) {
            Duration delay = task.shutdownDelay();
            if (delay.isZero() || delay.isNegative()) {
                signalKill();
            } else if (parent.noShutdownDelay()) {
                updateState(TaskState.STATE_PENDING, events.skippingShutdownDelay(delay));
                signalKill();
            } else {
                // Nomad's task shutdown_delay: the task keeps running (its state pending) before it is signalled.
                updateState(TaskState.STATE_PENDING, events.waitingShutdownDelay(delay));
                services.scheduler().schedule(this::signalKill, delay.toNanos(), TimeUnit.NANOSECONDS);
            }
        } else if (!inStart && !isParkedWithHandle()) {
            finish(null);
        }
        // A start in progress sees the kill when it returns; a parked task is stopped once its driver is back.
    }

    /** The kill itself: the Killing event, then the driver's stop (signal, kill_timeout, kill). */
    private void signalKill() {
        synchronized (this) {
            if (handle == null || parked || dead()) {
                return; // exited during the shutdown delay, or its driver left (stopped when it is back)
            }
        }
        emit(events.killing(killTimeout()));
        services.drivers().apply(task.driver()).ifPresent(d -> services.workers().execute(() -> stopTask(d)));
    }

    private synchronized boolean isParkedWithHandle() {
        return parked && handle != null;
    }

    private void stopTask(TaskDriver driver) {
        try {
            driver.stop(id, killTimeout(), killSignal());
        } catch (DriverException | RuntimeException e) {
            LOG.atWarn().addKeyValue("task", id.taskName()).addKeyValue("error", e.toString())
                    .log("stopping task failed; destroying it");
            try {
                driver.destroy(id, true);
            } catch (DriverException | RuntimeException e2) {
                // Nomad only logs a failed kill; Caravan also records it, as a "Killed" event with the error.
                finish(events.killed(e2.getMessage()));
            }
        }
    }

    Duration killTimeout() {
        Duration timeout = task.killTimeout() == null || task.killTimeout().isZero() ? DEFAULT_KILL_TIMEOUT
                : task.killTimeout();
        Duration max = services.maxKillTimeout().get();   // a reload may have changed it
        return timeout.compareTo(max) > 0 ? max : timeout;
    }

    private String killSignal() {
        return task.killSignal() == null || task.killSignal().isBlank() ? DEFAULT_KILL_SIGNAL : task.killSignal();
    }

    // ------------------------------------------------------------------------------------- driver hot swap

    /** The task's driver left: keep the handle, ignore the old driver's callbacks. */
    synchronized void park() {
        if (handle != null) {
            parked = true;
            generation++;
            LOG.atInfo().addKeyValue("alloc_id", id.allocId()).addKeyValue("task", id.taskName())
                    .log("task parked while its driver is away");
        }
    }

    /** A driver named like the task's bound: re-attach a parked task. */
    void driverBound() {
        synchronized (this) {
            if (!(parked && handle != null && gateOpen)) {
                return;
            }
        }
        services.workers().execute(this::recover);
    }

    /** Recoveries run one at a time (open and a driver bind may both ask); a recovered task is not recovered again. */
    private void recover() {
        synchronized (recoverLock) {
            recoverParked();
        }
    }

    private void recoverParked() {
        TaskHandle persisted;
        synchronized (this) {
            persisted = handle;
            if (persisted == null || !parked) {
                return;
            }
        }
        Optional<TaskDriver> maybeDriver = services.drivers().apply(persisted.driver() == null ? task.driver()
                : persisted.driver());
        if (maybeDriver.isEmpty()) {
            synchronized (this) {
                parked = true;
            }
            return; // stays parked until the driver binds
        }
        TaskDriver driver = maybeDriver.get();
        TaskHandle recovered;
        try {
            recovered = driver.recover(persisted);
        } catch (DriverException | RuntimeException e) {
            LOG.atWarn().addKeyValue("alloc_id", id.allocId()).addKeyValue("task", id.taskName())
                    .addKeyValue("error", e.toString()).log("failed to restore task; starting it again");
            synchronized (this) {
                handle = null;
                parked = false;
            }
            emit(events.restoreFailed("failed to restore task: " + e.getMessage()));
            boolean killed;
            synchronized (this) {
                killed = killing;
            }
            if (killed) {
                finish(null);
            } else {
                updateState(TaskState.STATE_PENDING, null);
                attemptStart();
            }
            return;
        }
        long gen;
        boolean stopNow;
        synchronized (this) {
            handle = recovered;
            parked = false;
            gen = ++generation;
            stopNow = killing;
        }
        LOG.atInfo().addKeyValue("alloc_id", id.allocId()).addKeyValue("task", id.taskName())
                .log("task re-attached");
        TaskHookContext ctx = new TaskHookContext(parent.alloc(), task, services.node().get(), parent.allocDir(),
                events, this::emit);
        ctx.control(control);
        synchronized (this) {
            lastContext = ctx;
        }
        for (TaskHook hook : hooks) {
            if (hook instanceof TaskHook.Recover r) {
                try {
                    r.recovered(ctx);
                } catch (RuntimeException e) {
                    LOG.atWarn().addKeyValue("task", id.taskName()).addKeyValue("hook", hook.name())
                            .addKeyValue("error", e.toString()).log("recover hook failed");
                }
            }
        }
        updateState(TaskState.STATE_RUNNING, null);
        attach(gen, driver);
        if (stopNow) {
            stopTask(driver);
        }
    }

    // ----------------------------------------------------------------------------- user restart and signal

    /** What hooks may do to this task (a template's change_mode). */
    private final TaskControl control = new TaskControl() {
        @Override
        public boolean restart(TaskEvent event) {
            return TaskRunner.this.restart(event);
        }

        @Override
        public void signal(String signal, TaskEvent event) throws DriverException {
            TaskRunner.this.signal(signal, event);
        }

        @Override
        public ExecResult exec(List<String> argv, Duration timeout) throws DriverException {
            return execOnce(argv, timeout);
        }

        @Override
        public void kill(TaskEvent event) {
            TaskRunner.this.kill(event);
        }

        @Override
        public boolean stopping() {
            synchronized (TaskRunner.this) {
                return killing || dead();
            }
        }
    };

    /** {@code alloc restart}: stop the running task and start it again at once; not counted by the policy. */
    boolean restart(String reason) {
        return restart(events.restartSignal(reason));
    }

    private boolean restart(TaskEvent event) {
        synchronized (this) {
            if (handle == null || parked || killing || dead()) {
                return false;
            }
            restartRequested = true;
        }
        emit(event);
        services.drivers().apply(task.driver()).ifPresent(d -> services.workers().execute(() -> stopTask(d)));
        return true;
    }

    /** {@code alloc signal}. */
    void signal(String signal) throws DriverException {
        signal(signal, events.signaling(signal));
    }

    private void signal(String signal, TaskEvent event) throws DriverException {
        TaskDriver driver;
        synchronized (this) {
            if (handle == null || parked || dead()) {
                throw new IllegalStateException("task \"" + task.name() + "\" is not running");
            }
            driver = services.drivers().apply(task.driver())
                    .orElseThrow(() -> new IllegalStateException("driver " + task.driver() + " is not available"));
        }
        emit(event);
        driver.signal(id, signal);
    }

    /** {@code alloc exec}: the command runs in the task through its driver. */
    public ExecSession exec(List<String> argv, boolean tty) {
        TaskDriver driver = runningDriver();
        try {
            return driver.execStreaming(id, argv, tty);
        } catch (UnsupportedCapabilityException e) {
            throw new UnsupportedOperationException("exec not supported", e);
        } catch (DriverException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /** A {@code script} check: the command runs in the task through its driver, bounded by {@code timeout}. */
    ExecResult execOnce(List<String> argv, Duration timeout) throws DriverException {
        return runningDriver().exec(id, argv, timeout);
    }

    /** Whether the driver isolates the task's filesystem (exec of a task that is not isolated runs on the node). */
    public boolean fsIsolated() {
        return services.drivers().apply(task.driver())
                .map(d -> !DriverCapabilities.FS_ISOLATION_NONE.equals(d.capabilities().fsIsolation()))
                .orElse(false);
    }

    /** The task's processes while it runs; empty when the driver cannot tell. */
    List<Long> pids() {
        try {
            return runningDriver().pids(id);
        } catch (DriverException | IllegalArgumentException e) {
            return List.of();
        }
    }

    private TaskDriver runningDriver() {
        synchronized (this) {
            if (handle == null || parked || dead()) {
                throw new IllegalArgumentException("task \"" + task.name() + "\" is not running");
            }
            return services.drivers().apply(task.driver())
                    .orElseThrow(() -> new IllegalStateException("driver " + task.driver() + " is not available"));
        }
    }

    // -------------------------------------------------------------------------------------------- state

    private void emit(TaskEvent event) {
        updateState(null, event);
    }

    /** Nomad's UpdateState: the event first (fails the task, counts a restart), then the state's timestamps. */
    private void updateState(String newState, TaskEvent event) {
        synchronized (this) {
            if (event != null) {
                history.addLast(event);
                while (history.size() > MAX_EVENTS) {
                    history.removeFirst();
                }
                if (event.failsTask()) {
                    failed = true;
                }
                if (TaskEvent.RESTARTING.equals(event.type())) {
                    restartCount++;
                    lastRestart = Instant.ofEpochSecond(0, event.time());
                }
            }
            if (newState != null && !TaskState.STATE_DEAD.equals(state)) {
                Instant now = services.clock().instant();
                if (TaskState.STATE_RUNNING.equals(newState) && !TaskState.STATE_RUNNING.equals(state)) {
                    startedAt = now;
                }
                if (TaskState.STATE_DEAD.equals(newState) && finishedAt == null) {
                    finishedAt = now;
                }
                state = newState;
            }
        }
        parent.taskChanged();
    }
}
