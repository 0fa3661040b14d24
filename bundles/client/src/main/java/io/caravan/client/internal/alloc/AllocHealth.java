package io.caravan.client.internal.alloc;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.caravan.api.model.AllocDeploymentStatus;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Job;
import io.caravan.api.model.Service;
import io.caravan.api.model.Task;
import io.caravan.api.model.TaskGroup;
import io.caravan.api.model.TaskLifecycle;
import io.caravan.api.model.TaskState;
import io.caravan.api.model.UpdateStrategy;

/**
 * Decides, once, whether an allocation of a deployment is healthy (Nomad's allochealth tracker). Healthy once every
 * counted task has been running continuously for {@code min_healthy_time} and, with {@code health_check = "checks"}
 * on a group that declares service checks, those checks have passed for as long; unhealthy when a task or the
 * allocation fails, or when {@code healthy_deadline} passes first. The caller passes the task states, the checks'
 * verdict and the time, and re-evaluates at {@link Verdict#recheckAt()} and whenever a check changes; the only state
 * kept is since when the checks pass.
 */
final class AllocHealth {
    /** Nomad's defaults for an update block that leaves them out (structs.DefaultUpdateStrategy). */
    static final Duration DEFAULT_MIN_HEALTHY_TIME = Duration.ofSeconds(10);
    static final Duration DEFAULT_HEALTHY_DEADLINE = Duration.ofMinutes(5);

    /** A decision ({@code healthy} non-null) or when to look again. */
    record Verdict(Boolean healthy, Instant recheckAt) {
        boolean decided() {
            return healthy != null;
        }
    }

    private final String deploymentId;
    private final Duration minHealthyTime;
    private final Instant deadline;
    private final Map<String, TaskLifecycle> lifecycles;
    private final boolean checksCount;
    private Instant checksPassingSince;

    private AllocHealth(String deploymentId, Duration minHealthyTime, Instant deadline,
                        Map<String, TaskLifecycle> lifecycles, boolean checksCount) {
        this.deploymentId = deploymentId;
        this.minHealthyTime = minHealthyTime;
        this.deadline = deadline;
        this.lifecycles = lifecycles;
        this.checksCount = checksCount;
    }

    /**
     * A tracker for {@code alloc}, or null when the client must not set its health: no deployment, health already
     * known, or {@code health_check = "manual"}. The deadline runs from {@code now}, as Nomad's starts with the hook.
     */
    static AllocHealth start(Allocation alloc, Instant now) {
        if (alloc.deploymentId() == null || alloc.deploymentId().isEmpty()) {
            return null;
        }
        if (alloc.deploymentStatus() != null && alloc.deploymentStatus().healthy() != null) {
            return null;
        }
        TaskGroup group = alloc.lookupTaskGroup();
        if (group == null) {
            return null;
        }
        UpdateStrategy strategy = effective(alloc.job(), group);
        String check = strategy == null || strategy.healthCheck() == null || strategy.healthCheck().isEmpty()
                ? UpdateStrategy.HEALTH_CHECKS : strategy.healthCheck();
        if (!UpdateStrategy.HEALTH_CHECKS.equals(check) && !UpdateStrategy.HEALTH_TASK_STATES.equals(check)) {
            return null; // manual: the operator sets it through /v1/deployment/allocation-health
        }
        Duration min = strategy == null || strategy.minHealthyTime() == null ? DEFAULT_MIN_HEALTHY_TIME
                : strategy.minHealthyTime();
        Duration healthyDeadline = strategy == null || strategy.healthyDeadline() == null
                || strategy.healthyDeadline().isZero() ? DEFAULT_HEALTHY_DEADLINE : strategy.healthyDeadline();
        Map<String, TaskLifecycle> lifecycles = new LinkedHashMap<>();
        boolean checks = hasChecks(group.services());
        for (Task task : group.tasks()) {
            if (task.lifecycle() != null) {
                lifecycles.put(task.name(), task.lifecycle());
            }
            checks |= hasChecks(task.services());
        }
        return new AllocHealth(alloc.deploymentId(), min, now.plus(healthyDeadline), lifecycles,
                checks && UpdateStrategy.HEALTH_CHECKS.equals(check));
    }

    private static boolean hasChecks(List<Service> services) {
        return services != null && services.stream().anyMatch(s -> s.checks() != null && !s.checks().isEmpty());
    }

    /** {@code health_check = "checks"} on a group that declares service checks: they must pass too. */
    boolean checksCount() {
        return checksCount;
    }

    /**
     * The group's update block over the job's, field by field (the server canonicalises the same way; this keeps a
     * job that reached us uncanonicalised from losing the job-level settings).
     */
    static UpdateStrategy effective(Job job, TaskGroup group) {
        UpdateStrategy g = group.update();
        UpdateStrategy j = job == null ? null : job.update();
        if (g == null || j == null) {
            return g != null ? g : j;
        }
        return new UpdateStrategy(
                g.stagger() != null ? g.stagger() : j.stagger(),
                g.maxParallel() != null ? g.maxParallel() : j.maxParallel(),
                g.healthCheck() != null && !g.healthCheck().isEmpty() ? g.healthCheck() : j.healthCheck(),
                g.minHealthyTime() != null ? g.minHealthyTime() : j.minHealthyTime(),
                g.healthyDeadline() != null ? g.healthyDeadline() : j.healthyDeadline(),
                g.progressDeadline() != null ? g.progressDeadline() : j.progressDeadline(),
                g.canary() != null ? g.canary() : j.canary(),
                g.autoRevert() != null ? g.autoRevert() : j.autoRevert(),
                g.autoPromote() != null ? g.autoPromote() : j.autoPromote());
    }

    String deploymentId() {
        return deploymentId;
    }

    Instant deadline() {
        return deadline;
    }

    /** The verdict for these task states and client status at {@code now}, without checks. */
    Verdict evaluate(Map<String, TaskState> states, String clientStatus, Instant now) {
        return evaluate(states, clientStatus, now, true);
    }

    /**
     * The verdict at {@code now}; {@code checksPassing} is the checks' state (true: all pass, false: one fails, null:
     * one has no result yet), read only when {@link #checksCount}.
     */
    Verdict evaluate(Map<String, TaskState> states, String clientStatus, Instant now, Boolean checksPassing) {
        if (checksCount) {
            if (!Boolean.TRUE.equals(checksPassing)) {
                checksPassingSince = null;
            } else if (checksPassingSince == null) {
                checksPassingSince = now;
            }
        }
        if (Allocation.CLIENT_FAILED.equals(clientStatus) || states.isEmpty()) {
            return new Verdict(false, null);
        }
        boolean allRunning = true;
        Instant latestStart = Instant.MIN;
        for (Map.Entry<String, TaskState> e : states.entrySet()) {
            TaskLifecycle lc = lifecycles.get(e.getKey());
            TaskState st = e.getValue();
            if (lc != null && TaskLifecycle.HOOK_POSTSTOP.equals(lc.hook())) {
                continue;
            }
            if (st.failed()) {
                return new Verdict(false, null);
            }
            boolean ephemeral = lc != null && !lc.sidecar() && (TaskLifecycle.HOOK_PRESTART.equals(lc.hook())
                    || TaskLifecycle.HOOK_POSTSTART.equals(lc.hook()));
            if (ephemeral && TaskState.STATE_DEAD.equals(st.state())) {
                continue; // finished successfully (a failure returned above)
            }
            if (!TaskState.STATE_RUNNING.equals(st.state()) || st.startedAt() == null) {
                allRunning = false;
                continue;
            }
            // StartedAt moves on every (re)start, so a restart resets the min_healthy_time clock.
            if (st.startedAt().isAfter(latestStart)) {
                latestStart = st.startedAt();
            }
        }
        boolean checksOk = !checksCount || checksPassingSince != null;
        if (allRunning && latestStart != Instant.MIN && checksOk) {
            Instant from = checksCount && checksPassingSince.isAfter(latestStart) ? checksPassingSince : latestStart;
            Instant healthyAt = from.plus(minHealthyTime);
            if (!healthyAt.isAfter(now) && !healthyAt.isAfter(deadline)) {
                return new Verdict(true, null);
            }
            if (now.isBefore(deadline)) {
                return new Verdict(null, healthyAt.isBefore(deadline) ? healthyAt : deadline);
            }
        }
        if (!now.isBefore(deadline)) {
            return new Verdict(false, null);
        }
        return new Verdict(null, deadline);
    }

    /** The status the client reports: the decision, when, and the server's canary flag and index unchanged. */
    static AllocDeploymentStatus decided(Allocation alloc, boolean healthy, Instant now) {
        AllocDeploymentStatus server = alloc.deploymentStatus();
        return new AllocDeploymentStatus(healthy, now, server != null && server.canary(),
                server == null ? 0 : server.modifyIndex());
    }
}
