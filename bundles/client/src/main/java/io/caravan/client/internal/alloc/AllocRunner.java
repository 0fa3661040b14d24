package io.caravan.client.internal.alloc;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import io.caravan.api.model.AllocDeploymentStatus;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Task;
import io.caravan.api.model.TaskEvent;
import io.caravan.api.model.TaskGroup;
import io.caravan.api.model.TaskState;
import io.caravan.client.internal.hooks.AllocDir;
import io.caravan.client.internal.hooks.AllocDirHook;
import io.caravan.client.internal.hooks.AllocHook;
import io.caravan.client.internal.hooks.ArtifactHook;
import io.caravan.client.internal.hooks.DispatchPayloadHook;
import io.caravan.client.internal.hooks.IdentityHook;
import io.caravan.client.internal.hooks.LogsHook;
import io.caravan.client.internal.hooks.ServiceHook;
import io.caravan.client.internal.hooks.TaskDirHook;
import io.caravan.client.internal.hooks.TaskEnvHook;
import io.caravan.client.internal.hooks.TaskHook;
import io.caravan.client.internal.hooks.TemplateHook;
import io.caravan.client.internal.state.ClientStateStore.PersistedAlloc;
import io.caravan.client.internal.state.ClientStateStore.PersistedHandle;
import io.caravan.client.internal.state.ClientStateStore.PersistedTask;
import io.caravan.client.internal.state.ClientStateStore;
import io.caravan.plugin.api.driver.DriverException;
import io.caravan.plugin.api.driver.ExecResult;
import io.caravan.plugin.api.driver.TaskHandle;
import io.caravan.plugin.api.driver.TaskId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one allocation (Nomad's allocrunner): the alloc hooks, one {@link TaskRunner} per task, the lifecycle order
 * (prestart → main → poststart; poststop once the main tasks are dead), killing the others when a task fails or the
 * leader dies, the client status derived from task states, persistence, and the updates sent to the servers.
 *
 * <p>Coordination runs on the client's scheduler thread: a task's change only marks the runner dirty, so task
 * runners never call back into a lock their caller holds.
 */
public final class AllocRunner {
    private static final Logger LOG = LoggerFactory.getLogger(AllocRunner.class);

    private final RunnerServices services;
    private final String allocId;
    private final AllocDir allocDir;
    private final List<AllocHook> hooks;
    private final Map<String, TaskRunner> tasks = new LinkedHashMap<>();
    private final Consumer<AllocRunner> onDestroyed;
    private final AtomicBoolean coordinationScheduled = new AtomicBoolean();
    private final TaskEvents events;
    private final AllocStateWriter stateWriter;
    private final AllocChecks checks;

    private volatile Allocation alloc;
    // Touched on the scheduler thread (coordinate) or under this.
    private boolean prerunDone;
    private boolean prerunFailed;
    private boolean stopping;
    private boolean stopScheduled;
    private boolean destroyRequested;
    private boolean postrunDone;
    private boolean destroyed;
    private String sentStatus;
    private Map<String, TaskState> sentStates = Map.of();
    private AllocDeploymentStatus sentHealth;
    // Deployment health (scheduler thread): the deployment last considered, its tracker until it decides, and the
    // decision, kept over server updates that do not carry it yet.
    private String healthDeployment;
    private AllocHealth health;
    private Instant healthRecheck;
    private volatile AllocDeploymentStatus decidedHealth;

    public AllocRunner(RunnerServices services, Allocation alloc, PersistedAlloc restored,
                       Consumer<AllocRunner> onDestroyed) {
        this.services = services;
        this.alloc = alloc;
        this.allocId = alloc.id();
        this.allocDir = AllocDir.of(services.allocDirRoot(), allocId);
        this.hooks = List.of(new AllocDirHook());
        this.onDestroyed = onDestroyed;
        this.events = services.events();
        this.stateWriter = new AllocStateWriter(services.state(), services.workers(), allocId);
        this.checks = new AllocChecks(allocId, services.scheduler(), services.workers(), services.clock(),
                this::execInTask, this::restartForCheck, this::taskChanged);
        TaskGroup group = alloc.lookupTaskGroup();
        String jobType = alloc.job() == null ? null : alloc.job().type();
        if (group != null) {
            for (Task task : group.tasks()) {
                PersistedTask saved = restored == null ? null : restored.tasks().get(task.name());
                TaskHandle handle = saved == null || saved.handle() == null ? null
                        : saved.handle().toHandle(new TaskId(allocId, task.name()));
                tasks.put(task.name(), new TaskRunner(this, services, task, taskHooks(), jobType,
                        saved == null ? null : saved.state(), handle));
            }
        }
        // A restored runner reports once at start: the last update before the restart may not have been delivered.
        AllocDeploymentStatus known = alloc.deploymentStatus();
        decidedHealth = known != null && known.healthy() != null ? known : null;
    }

    /**
     * Nomad's task hook order, reduced to what Caravan has: task dir, logs, dispatch payload, env, identity,
     * artifacts, templates, services.
     */
    private List<TaskHook> taskHooks() {
        return List.of(new TaskDirHook(), new LogsHook(services.logs()), new DispatchPayloadHook(), new TaskEnvHook(),
                new IdentityHook(services.identitySigner(), services.scheduler(), services.clock(), services.random(),
                        this::restartForCheck, this::signal),
                new ArtifactHook(services.artifactSandbox()),
                new TemplateHook(services.templateSource(), services.scheduler(), services.workers(), services.clock(),
                        services.random()),
                new ServiceHook(services.serviceRegistrar(), checks));
    }

    public String allocId() {
        return allocId;
    }

    /** The allocation's service checks and their latest results. */
    public AllocChecks checks() {
        return checks;
    }

    private ExecResult execInTask(String task, List<String> argv, Duration timeout) throws Exception {
        TaskRunner tr = tasks.get(task);
        if (tr == null) {
            throw new IllegalArgumentException("task \"" + task + "\" not found");
        }
        return tr.execOnce(argv, timeout);
    }

    private boolean restartForCheck(String task, String reason) {
        TaskRunner tr = tasks.get(task);
        return tr != null && tr.restart(reason);
    }

    public Allocation alloc() {
        return alloc;
    }

    public AllocDir allocDir() {
        return allocDir;
    }

    public Map<String, TaskState> states() {
        Map<String, TaskState> out = new LinkedHashMap<>();
        tasks.forEach((name, tr) -> out.put(name, tr.state()));
        return out;
    }

    /** Runs the alloc hooks, then lets coordination start the tasks. */
    public void run() {
        if (tasks.isEmpty()) {
            LOG.atError().addKeyValue("alloc_id", allocId).addKeyValue("task_group", alloc.taskGroup())
                    .log("allocation's job has no such task group; reporting it failed");
        }
        services.workers().execute(() -> {
            try {
                for (AllocHook hook : hooks) {
                    if (hook instanceof AllocHook.Prerun prerun) {
                        prerun.prerun(alloc, allocDir);
                    }
                }
            } catch (Exception e) {
                LOG.atError().addKeyValue("alloc_id", allocId).addKeyValue("error", e.toString())
                        .log("prerun failed");
                synchronized (this) {
                    prerunFailed = true;
                }
                String message = "failed to build alloc dir: " + e.getMessage();
                tasks.values().forEach(tr -> tr.kill(events.setupFailure(message, true)));
            }
            synchronized (this) {
                prerunDone = true;
            }
            taskChanged();
        });
    }

    /** A newer version of the allocation from the servers. */
    public void update(Allocation updated) {
        Allocation previous;
        // Under the lock the health decision is written with, so neither overwrites the other.
        synchronized (this) {
            previous = alloc;
            // Keep our client-side fields; everything else is the server's.
            Allocation merged = updated.withClientStatus(previous.clientStatus(), previous.clientDescription());
            AllocDeploymentStatus ours = decidedHealth;
            if (ours != null && Objects.equals(previous.deploymentId(), updated.deploymentId())
                    && (updated.deploymentStatus() == null || updated.deploymentStatus().healthy() == null)) {
                merged = merged.toBuilder().deploymentStatus(ours).build(); // the server has not merged it yet
            }
            alloc = merged;
        }
        if (!Objects.equals(previous.deploymentId(), updated.deploymentId())) {
            taskChanged(); // an in-place update into a new deployment: its health is tracked afresh
        }
        if (updated.terminal() && (Allocation.DESIRED_STOP.equals(updated.desiredStatus())
                || Allocation.DESIRED_EVICT.equals(updated.desiredStatus()))) {
            stop();
        }
    }

    /**
     * Kill every task (the poststop ones still run afterwards), after the group's {@code shutdown_delay} unless the
     * servers asked to skip it ({@code DesiredTransition.NoShutdownDelay}).
     */
    public void stop() {
        synchronized (this) {
            if (stopping || stopScheduled) {
                return;
            }
            stopScheduled = true;
        }
        TaskGroup group = alloc.lookupTaskGroup();
        Duration delay = group == null || group.shutdownDelay() == null ? Duration.ZERO
                : group.shutdownDelay();
        if (delay.isZero() || delay.isNegative() || noShutdownDelay()) {
            beginStop();
        } else {
            LOG.atDebug().addKeyValue("alloc_id", allocId).addKeyValue("shutdown_delay", delay)
                    .log("waiting for the group's shutdown delay");
            services.scheduler().schedule(this::beginStop, delay.toNanos(), TimeUnit.NANOSECONDS);
        }
    }

    private void beginStop() {
        synchronized (this) {
            if (stopping) {
                return;
            }
            stopping = true;
        }
        LOG.atInfo().addKeyValue("alloc_id", allocId).log("stopping allocation");
        taskChanged();
    }

    /** The servers asked to stop without waiting for shutdown delays. */
    boolean noShutdownDelay() {
        return Boolean.TRUE.equals(alloc.desiredTransition().noShutdownDelay());
    }

    /** The servers forgot the allocation: stop it and, once every task is dead, remove its directory and state. */
    public void destroy() {
        synchronized (this) {
            destroyRequested = true;
            stopping = true;
        }
        taskChanged();
    }

    public synchronized boolean isDestroyed() {
        return destroyed;
    }

    /** Every task is dead: the allocation may be garbage-collected on this client. */
    public boolean terminal() {
        return tasks.values().stream().allMatch(TaskRunner::dead);
    }

    /** When the last task finished (for garbage collection order); null while any runs. */
    public Instant finishedAt() {
        Instant last = null;
        for (TaskState s : states().values()) {
            if (s.finishedAt() == null) {
                return null;
            }
            last = last == null || s.finishedAt().isAfter(last) ? s.finishedAt() : last;
        }
        return last == null ? Instant.EPOCH : last;
    }

    /** Park the tasks of a driver that left. */
    public void park(String driver) {
        tasks.values().stream().filter(tr -> driver.equals(tr.task().driver())).forEach(TaskRunner::park);
    }

    /** A driver bound: re-attach its parked tasks. */
    public void driverBound(String driver) {
        tasks.values().stream().filter(tr -> driver.equals(tr.task().driver())).forEach(TaskRunner::driverBound);
    }

    /** {@code alloc restart}: one task, or every running task when {@code taskName} is null. */
    public void restart(String taskName) {
        // Nomad's reasons (client.RestartAllocation)
        String reason = taskName == null || taskName.isEmpty() ? "User requested running tasks to restart"
                : "User requested task to restart";
        for (TaskRunner tr : select(taskName)) {
            tr.restart(reason);
        }
    }

    /** {@code alloc signal}: one task, or every running task when {@code taskName} is null. */
    public void signal(String taskName, String signal) {
        for (TaskRunner tr : select(taskName)) {
            try {
                if (taskName != null || !tr.dead()) {
                    tr.signal(signal);
                }
            } catch (DriverException e) {
                throw new IllegalStateException(e.getMessage(), e);
            }
        }
    }

    /** The named task, for exec. */
    public TaskRunner task(String taskName) {
        TaskRunner tr = tasks.get(taskName);
        if (tr == null) {
            throw new IllegalArgumentException("task \"" + taskName + "\" not found");
        }
        return tr;
    }

    /** The processes of each running task, for resource usage. */
    public Map<String, List<Long>> taskPids() {
        Map<String, List<Long>> out = new LinkedHashMap<>();
        for (TaskRunner tr : new ArrayList<>(tasks.values())) {
            if (!tr.dead()) {
                out.put(tr.task().name(), tr.pids());
            }
        }
        return out;
    }

    private List<TaskRunner> select(String taskName) {
        if (taskName == null || taskName.isEmpty()) {
            return new ArrayList<>(tasks.values());
        }
        TaskRunner tr = tasks.get(taskName);
        if (tr == null) {
            throw new IllegalArgumentException("Failed to find task " + taskName);
        }
        return List.of(tr);
    }

    /** Any task's state changed: coordinate once, soon, on the scheduler thread. */
    void taskChanged() {
        if (coordinationScheduled.compareAndSet(false, true)) {
            services.scheduler().execute(() -> {
                coordinationScheduled.set(false);
                try {
                    coordinate();
                } catch (RuntimeException e) {
                    LOG.atError().addKeyValue("alloc_id", allocId).setCause(e).log("alloc coordination failed");
                }
            });
        }
    }

    private void coordinate() {
        boolean stop;
        boolean ready;
        synchronized (this) {
            if (destroyed) {
                return;
            }
            stop = stopping;
            ready = prerunDone && !prerunFailed;
        }
        Map<String, TaskState> states = states();

        // Restored tasks with a live handle re-attach whatever the lifecycle order says.
        tasks.values().stream().filter(tr -> tr.handle() != null).forEach(TaskRunner::open);

        killOnFailure(states);
        if (stop) {
            killInOrder(states);
        }
        if (ready) {
            openGates(states, stop);
        }
        states = states();
        trackHealth(states, stop);
        persist(states);
        report(states);
        finishIfDone(states);
    }

    /** Nomad's handleTaskStateUpdates: a failed task kills its siblings; a dead leader kills the group. */
    private void killOnFailure(Map<String, TaskState> states) {
        TaskEvent killEvent = null;
        List<TaskRunner> live = new ArrayList<>();
        boolean hasSidecars = false;
        for (TaskRunner tr : tasks.values()) {
            if (tr.poststop()) {
                continue;
            }
            hasSidecars |= tr.sidecar();
            TaskState st = states.get(tr.name());
            if (!TaskState.STATE_DEAD.equals(st.state())) {
                live.add(tr);
            } else if (st.failed()) {
                if (killEvent == null) {
                    killEvent = events.siblingFailed(tr.name());
                }
            } else if (tr.leader()) {
                killEvent = events.leaderDead();
            }
        }
        if (live.isEmpty()) {
            return;
        }
        boolean onlySidecars = hasSidecars && live.stream().allMatch(TaskRunner::sidecar);
        if (killEvent == null && onlySidecars) {
            killEvent = events.mainDead();
        }
        if (killEvent != null) {
            for (TaskRunner tr : live) {
                tr.kill(killEvent);
            }
        }
    }

    /**
     * Nomad's stop order: the leader first, then the other tasks, sidecars last (poststop tasks run afterwards).
     * Each step waits for the previous one's tasks to be dead; coordination runs again on every change.
     */
    private void killInOrder(Map<String, TaskState> states) {
        List<TaskRunner> live = tasks.values().stream().filter(tr -> !tr.poststop())
                .filter(tr -> !TaskState.STATE_DEAD.equals(states.get(tr.name()).state())).toList();
        List<TaskRunner> leaders = live.stream().filter(TaskRunner::leader).toList();
        List<TaskRunner> others = live.stream().filter(tr -> !tr.leader() && !tr.sidecar()).toList();
        List<TaskRunner> step = !leaders.isEmpty() ? leaders : !others.isEmpty() ? others : live;
        step.forEach(tr -> tr.kill(null));
    }

    /** Lifecycle order (NOMAD-REFERENCE §5.7). */
    private void openGates(Map<String, TaskState> states, boolean stop) {
        List<TaskRunner> prestart = tasks.values().stream().filter(TaskRunner::prestart).toList();
        List<TaskRunner> main = tasks.values().stream().filter(TaskRunner::main).toList();
        if (!stop) {
            prestart.forEach(TaskRunner::open);
            boolean prestartDone = prestart.stream().allMatch(tr -> {
                TaskState st = states.get(tr.name());
                return tr.sidecar() ? TaskState.STATE_RUNNING.equals(st.state())
                        : TaskState.STATE_DEAD.equals(st.state()) && !st.failed();
            });
            if (prestartDone) {
                main.forEach(TaskRunner::open);
            }
            boolean mainRunning = !main.isEmpty() && main.stream().allMatch(tr -> states.get(tr.name()).startedAt() != null);
            if (mainRunning) {
                tasks.values().stream().filter(TaskRunner::poststart).forEach(TaskRunner::open);
            }
        }
        boolean othersDead = tasks.values().stream().filter(tr -> !tr.poststop())
                .allMatch(tr -> TaskState.STATE_DEAD.equals(states.get(tr.name()).state()));
        if (othersDead) {
            tasks.values().stream().filter(TaskRunner::poststop).forEach(TaskRunner::open);
        }
    }

    private void persist(Map<String, TaskState> states) {
        Map<String, PersistedTask> saved = new LinkedHashMap<>();
        tasks.forEach((name, tr) -> {
            TaskHandle handle = tr.handle();
            saved.put(name, new PersistedTask(states.get(name), handle == null ? null : PersistedHandle.of(handle)));
        });
        ClientStatus status = clientStatus(states);
        Allocation current = alloc.withClientStatus(status.status(), status.description());
        stateWriter.save(new PersistedAlloc(ClientStateStore.VERSION, current, saved));
    }

    /**
     * Deployment health, decided once per deployment (see {@link AllocHealth}); a stop the servers asked for before
     * a decision abandons it, as Nomad's health hook does when the allocation is killed.
     */
    private void trackHealth(Map<String, TaskState> states, boolean stop) {
        Instant now = services.clock().instant();
        Allocation current = alloc;
        if (!Objects.equals(healthDeployment, current.deploymentId())) {
            healthDeployment = current.deploymentId();
            health = AllocHealth.start(current, now);
            healthRecheck = null;
            decidedHealth = null;
        }
        if (health == null) {
            return;
        }
        if (stop) {
            health = null;
            return;
        }
        // Checks start once their task runs: until then the group's declared checks have no result.
        Boolean checksPassing = checks.isEmpty() ? null : checks.passing();
        AllocHealth.Verdict verdict = health.evaluate(states, clientStatus(states).status(), now, checksPassing);
        if (verdict.decided()) {
            AllocDeploymentStatus status = AllocHealth.decided(current, verdict.healthy(), now);
            LOG.atInfo().addKeyValue("alloc_id", allocId).addKeyValue("deployment_id", health.deploymentId())
                    .addKeyValue("healthy", verdict.healthy()).log("allocation health decided");
            health = null;
            synchronized (this) {
                decidedHealth = status;
                alloc = alloc.toBuilder().deploymentStatus(status).build();
            }
        } else if (verdict.recheckAt() != null && !verdict.recheckAt().equals(healthRecheck)) {
            healthRecheck = verdict.recheckAt();
            // A millisecond late rather than early: the verdict compares against the clock, not the timer.
            long delay = Math.max(0, Duration.between(now, verdict.recheckAt()).toMillis()) + 1;
            services.scheduler().schedule(this::taskChanged, delay, TimeUnit.MILLISECONDS);
        }
    }

    /** Sends the client's view to the servers when the status, a task state or the deployment health changed. */
    private void report(Map<String, TaskState> states) {
        ClientStatus status = clientStatus(states);
        AllocDeploymentStatus healthNow = decidedHealth;
        if (status.status().equals(sentStatus) && states.equals(sentStates) && Objects.equals(healthNow, sentHealth)) {
            return;
        }
        sentHealth = healthNow;
        if (!status.status().equals(sentStatus)) {
            LOG.atInfo().addKeyValue("alloc_id", allocId).addKeyValue("client_status", status.status())
                    .log("allocation status changed");
        }
        sentStatus = status.status();
        sentStates = states;
        Allocation current;
        synchronized (this) {
            current = alloc = alloc.withClientStatus(status.status(), status.description());
        }
        services.updates().accept(ClientStatus.update(current, status, states));
    }

    /** From the task states; an allocation whose job has no such group cannot run at all. */
    private ClientStatus clientStatus(Map<String, TaskState> states) {
        return tasks.isEmpty()
                ? new ClientStatus(Allocation.CLIENT_FAILED, "missing task group \"" + alloc.taskGroup() + "\"")
                : ClientStatus.of(states);
    }

    /** Sends the current client view again (after lost contact with the servers). */
    public void resend() {
        Map<String, TaskState> states = states();
        services.updates().accept(ClientStatus.update(alloc, clientStatus(states), states));
    }

    private void finishIfDone(Map<String, TaskState> states) {
        boolean allDead = states.values().stream().allMatch(s -> TaskState.STATE_DEAD.equals(s.state()));
        if (!allDead) {
            return;
        }
        boolean runPostrun;
        boolean runDestroy;
        synchronized (this) {
            runPostrun = !postrunDone;
            postrunDone = true;
            runDestroy = destroyRequested && !destroyed;
            destroyed |= runDestroy;
        }
        if (runPostrun) {
            checks.stopAll();
            services.serviceRegistrar().deregisterAlloc(allocId);   // the group's services, and any left
            hooks.stream().filter(h -> h instanceof AllocHook.Postrun)
                    .forEach(h -> ((AllocHook.Postrun) h).postrun(alloc, allocDir));
        }
        if (runDestroy) {
            stateWriter.delete(() -> {
                hooks.stream().filter(h -> h instanceof AllocHook.Destroy)
                        .forEach(h -> ((AllocHook.Destroy) h).destroy(alloc, allocDir));
                LOG.atInfo().addKeyValue("alloc_id", allocId).log("allocation destroyed");
                onDestroyed.accept(this);
            });
        }
    }
}
