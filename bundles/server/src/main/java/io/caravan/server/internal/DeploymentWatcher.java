package io.caravan.server.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.Deployment;
import io.caravan.api.model.DeploymentState;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.state.StateSnapshot;
import io.caravan.state.StateStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's deployment watcher (Nomad's deploymentwatcher): for every running deployment it fails it on an
 * unhealthy allocation or a missed progress deadline (re-registering the latest stable job version when the group
 * has {@code auto_revert}), promotes canaries once healthy when every canaried group has {@code auto_promote}, marks
 * it successful (and its job version stable) once every group is promoted and healthy, says when it waits for manual
 * promotion, and creates an evaluation whenever allocation health moved so the reconciler continues the roll.
 *
 * <p>It lives in {@link LeaderDuties}: built from state on election, stopped with leadership. Applied commands mark
 * deployments to look at; they are looked at together, at most every {@link #MIN_INTERVAL} (rate limit), and all
 * running deployments every {@link #TICK} for deadlines. Every decision is a write through Raft; the decision itself
 * is {@link #decide}, pure, with the time passed in.
 */
final class DeploymentWatcher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DeploymentWatcher.class);
    static final Duration MIN_INTERVAL = Duration.ofMillis(250);
    static final Duration TICK = Duration.ofSeconds(1);

    static final String FAILED_UNHEALTHY = "Failed due to unhealthy allocations";
    static final String FAILED_DEADLINE = "Failed due to progress deadline";
    static final String RUNNING_AUTO_PROMOTION = "Deployment is running pending automatic promotion";

    private final StateStore store;
    private final RaftWrites writes;
    private final Clock clock;
    private final ScheduledExecutorService timers;
    /** Deployments an applied command touched since the last look. */
    private final Set<String> dirty = ConcurrentHashMap.newKeySet();
    /** Health seen at the last look, by deployment: a change calls for an evaluation. */
    private final Map<String, Integer> seenHealth = new ConcurrentHashMap<>();
    /** Deployments whose write is in flight: not decided again until it lands. */
    private final Set<String> writing = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private volatile boolean closed;

    DeploymentWatcher(StateStore store, RaftWrites writes, Clock clock, ScheduledExecutorService timers) {
        this.store = store;
        this.writes = writes;
        this.clock = clock;
        this.timers = timers;
        timers.scheduleWithFixedDelay(this::tick, 0, TICK.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** A command was applied: the deployments it may have moved are looked at soon. */
    void applied(Command command) {
        if (command instanceof Command.AllocClientUpdate c) {
            StateSnapshot snapshot = store.snapshot();
            // Only a health report can move a deployment.
            c.nodes().forEach(n -> n.allocs().stream().filter(a -> a.deploymentStatus() != null
                    && a.deploymentStatus().healthy() != null).forEach(a -> snapshot.get(NomadTables.ALLOCS, a.id())
                    .map(Allocation::deploymentId).filter(id -> id != null && !id.isEmpty()).ifPresent(dirty::add)));
        } else if (command instanceof Command.PlanApply c) {
            if (c.deployment() != null) {
                seenHealth.putIfAbsent(c.deployment().id(), 0); // a new deployment has no health to act on yet
                dirty.add(c.deployment().id());
            }
            c.deploymentUpdates().forEach(u -> dirty.add(u.deploymentId()));
        } else if (command instanceof Command.DeploymentStatusChange c) {
            dirty.add(c.deploymentId());
        } else if (command instanceof Command.DeploymentPromotion c) {
            dirty.add(c.deploymentId());
        } else if (command instanceof Command.DeploymentAllocHealth c) {
            dirty.add(c.deploymentId());
        } else {
            return;
        }
        if (!dirty.isEmpty() && scheduled.compareAndSet(false, true)) {
            timers.schedule(this::lookAtDirty, MIN_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private void lookAtDirty() {
        scheduled.set(false);
        List<String> ids = new ArrayList<>(dirty);
        dirty.removeAll(ids);
        StateSnapshot snapshot = store.snapshot();
        for (String id : ids) {
            snapshot.get(NomadTables.DEPLOYMENTS, id).ifPresent(d -> look(snapshot, d));
        }
    }

    private void tick() {
        try {
            StateSnapshot snapshot = store.snapshot();
            snapshot.all(NomadTables.DEPLOYMENTS).filter(d -> Deployment.STATUS_RUNNING.equals(d.status()))
                    .forEach(d -> look(snapshot, d));
            // Forget what no longer runs.
            seenHealth.keySet().removeIf(id -> snapshot.get(NomadTables.DEPLOYMENTS, id)
                    .map(d -> !d.active()).orElse(true));
        } catch (RuntimeException e) {
            LOG.atWarn().setCause(e).log("deployment watcher tick failed");
        }
    }

    private void look(StateSnapshot snapshot, Deployment d) {
        if (closed || !d.active() || writing.contains(d.id())) {
            return;
        }
        int health = health(d);
        Integer seen = seenHealth.put(d.id(), health);
        boolean progressed = seen == null || seen != health; // first sight after an election: look again too
        Optional<Command> decision = decide(snapshot, d, clock.instant(), progressed,
                () -> UUID.randomUUID().toString());
        decision.ifPresent(command -> {
            writing.add(d.id());
            LOG.atDebug().addKeyValue("deployment_id", d.id()).addKeyValue("command",
                    command.getClass().getSimpleName()).log("deployment watcher writes");
            writes.submit(command).whenComplete((r, e) -> {
                writing.remove(d.id());
                if (e != null) {
                    seenHealth.remove(d.id()); // decided again at the next look
                    LOG.atDebug().addKeyValue("deployment_id", d.id()).setCause(e).log("deployment write refused");
                }
            });
        });
    }

    private static int health(Deployment d) {
        int sum = 0;
        for (DeploymentState s : d.taskGroups().values()) {
            sum = sum * 31 + s.healthyAllocs() * 1009 + s.unhealthyAllocs();
        }
        return sum;
    }

    /**
     * What one look at a deployment writes, in Nomad's order of precedence: a failure (unhealthy allocation, then
     * progress deadline), an automatic promotion, success, the "requires promotion" description, then an evaluation
     * when health {@code progressed}. Empty when nothing is due.
     */
    static Optional<Command> decide(StateSnapshot s, Deployment d, Instant now, boolean progressed,
                                    Supplier<String> ids) {
        if (!Deployment.STATUS_RUNNING.equals(d.status())) {
            return Optional.empty();
        }
        Job job = s.get(NomadTables.JOBS, NomadTables.key(d.namespace(), d.jobId())).orElse(null);
        if (job == null || job.version() != d.jobVersion() || Boolean.TRUE.equals(job.stop())) {
            return Optional.empty(); // the reconciler cancels it
        }
        long nowNanos = now.getEpochSecond() * 1_000_000_000L + now.getNano();
        List<Allocation> allocs = s.byIndex(NomadTables.ALLOCS, "job", NomadTables.key(d.namespace(), d.jobId()))
                .filter(a -> d.id().equals(a.deploymentId())).toList();
        Optional<Allocation> unhealthy = allocs.stream().filter(a -> a.deploymentStatus() != null
                && Boolean.FALSE.equals(a.deploymentStatus().healthy())).findFirst();
        if (unhealthy.isPresent()) {
            DeploymentState group = d.taskGroups().get(unhealthy.get().taskGroup());
            return Optional.of(fail(s, d, job, FAILED_UNHEALTHY, group != null && group.autoRevert(), nowNanos,
                    ids));
        }
        for (Map.Entry<String, DeploymentState> e : d.taskGroups().entrySet()) {
            DeploymentState g = e.getValue();
            if (g.requireProgressBy() != null && now.isAfter(g.requireProgressBy()) && !progressing(g)) {
                return Optional.of(fail(s, d, job, FAILED_DEADLINE, g.autoRevert(), nowNanos, ids));
            }
        }
        boolean needsPromotion = false;
        boolean autoPromote = true;
        boolean canariesHealthy = true;
        boolean done = true;
        for (DeploymentState g : d.taskGroups().values()) {
            if (g.desiredCanaries() > 0 && !g.promoted()) {
                needsPromotion = true;
                autoPromote &= g.autoPromote();
                canariesHealthy &= healthyCanaries(allocs, g) >= g.desiredCanaries();
                done = false;
            }
            done &= g.healthyAllocs() >= g.desiredTotal();
        }
        if (needsPromotion && autoPromote && canariesHealthy) {
            return Optional.of(new Command.DeploymentPromotion(d.id(), true, List.of(), eval(job, d, ids, nowNanos),
                    nowNanos));
        }
        if (done && !d.taskGroups().isEmpty()) {
            return Optional.of(new Command.DeploymentStatusChange(d.id(), Deployment.STATUS_SUCCESSFUL,
                    DeploymentApply.DESCRIPTION_SUCCESSFUL, null, null, nowNanos));
        }
        String description = runningDescription(d);
        if (!description.equals(d.statusDescription())) {
            return Optional.of(new Command.DeploymentStatusChange(d.id(), Deployment.STATUS_RUNNING, description,
                    progressed ? eval(job, d, ids, nowNanos) : null, null, nowNanos));
        }
        if (progressed) {
            return Optional.of(new Command.EvalUpsert(List.of(eval(job, d, ids, nowNanos))));
        }
        return Optional.empty();
    }

    /** A running deployment's description: whether it waits for a promotion, manual or automatic. */
    static String runningDescription(Deployment d) {
        boolean needsPromotion = false;
        boolean autoPromote = true;
        for (DeploymentState g : d.taskGroups().values()) {
            if (g.desiredCanaries() > 0 && !g.promoted()) {
                needsPromotion = true;
                autoPromote &= g.autoPromote();
            }
        }
        return !needsPromotion ? DeploymentApply.DESCRIPTION_RUNNING
                : autoPromote ? RUNNING_AUTO_PROMOTION : DeploymentApply.DESCRIPTION_NEEDS_PROMOTION;
    }

    /** Nomad: a group waiting for promotion is on time once its canaries are healthy; otherwise all must be. */
    private static boolean progressing(DeploymentState g) {
        if (g.desiredCanaries() > 0 && !g.promoted()) {
            return g.healthyAllocs() >= g.desiredCanaries();
        }
        return g.healthyAllocs() >= g.desiredTotal();
    }

    private static long healthyCanaries(List<Allocation> allocs, DeploymentState g) {
        return allocs.stream().filter(a -> g.placedCanaries().contains(a.id()) && a.deploymentStatus() != null
                && Boolean.TRUE.equals(a.deploymentStatus().healthy())).count();
    }

    /**
     * Fails the deployment; with {@code autoRevert}, registers the latest stable version before this one again (as a
     * new version), unless it has the same specification as the job now.
     */
    private static Command fail(StateSnapshot s, Deployment d, Job job, String why, boolean autoRevert, long nowNanos,
                                Supplier<String> ids) {
        return fail(s, d, job, why, autoRevert, eval(job, d, ids, nowNanos), nowNanos);
    }

    /** The failure of {@code d} for {@code why}, reverting as {@link #decide} does (also an operator's fail). */
    static Command.DeploymentStatusChange fail(StateSnapshot s, Deployment d, Job job, String why, boolean autoRevert,
                                               Evaluation eval, long nowNanos) {
        if (!autoRevert) {
            return new Command.DeploymentStatusChange(d.id(), Deployment.STATUS_FAILED, why, eval, null, nowNanos);
        }
        Optional<Job> stable = s.prefix(NomadTables.JOB_VERSIONS, NomadTables.key(d.namespace(), d.jobId()) + "\0")
                .filter(v -> Boolean.TRUE.equals(v.stable()) && v.version().longValue() != job.version().longValue())
                .max(Comparator.comparingLong(Job::version));
        if (stable.isEmpty()) {
            return new Command.DeploymentStatusChange(d.id(), Deployment.STATUS_FAILED,
                    why + " - no stable job version to auto revert to", eval, null, nowNanos);
        }
        Job to = stable.get();
        if (JobApply.sameSpec(to, job)) {
            return new Command.DeploymentStatusChange(d.id(), Deployment.STATUS_FAILED, why
                    + " - not rolling back to stable job version " + to.version()
                    + " as current job has same specification", eval, null, nowNanos);
        }
        return new Command.DeploymentStatusChange(d.id(), Deployment.STATUS_FAILED, why
                + " - rolling back to job version " + to.version(), eval,
                to.withStable(false).withSubmitTime(nowNanos), nowNanos);
    }

    static Evaluation eval(Job job, Deployment d, Supplier<String> ids, long nowNanos) {
        return Evaluation.forJob(ids.get(), job, Evaluation.TRIGGER_DEPLOYMENT_WATCHER, nowNanos).toBuilder()
                .deploymentId(d.id()).jobModifyIndex(job.jobModifyIndex() == null ? 0 : job.jobModifyIndex())
                .build();
    }

    @Override
    public void close() {
        closed = true;
    }
}
