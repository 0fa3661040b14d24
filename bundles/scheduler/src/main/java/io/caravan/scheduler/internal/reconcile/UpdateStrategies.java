package io.caravan.scheduler.internal.reconcile;

import java.time.Duration;

import io.caravan.api.model.Job;
import io.caravan.api.model.TaskGroup;
import io.caravan.api.model.UpdateStrategy;

/**
 * A group's effective {@code update} block: the group's fields over the job's, over Nomad's defaults
 * ({@code max_parallel = 1}, {@code health_check = "checks"}, {@code min_healthy_time = 10s},
 * {@code healthy_deadline = 5m}, {@code progress_deadline = 10m}, no canaries, no auto-revert or auto-promote).
 * Registration canonicalises as Nomad does: every service job's groups carry their whole strategy (the defaults when
 * the jobspec has no {@code update} block), so each is replaced through a deployment unless its strategy says
 * {@code max_parallel = 0}. Jobs without a rolling strategy (batch jobs: their job-level block is stored all zero;
 * jobs stored before that canonicalisation without any block) are replaced without a deployment.
 */
public final class UpdateStrategies {
    public static final UpdateStrategy DEFAULT = new UpdateStrategy(Duration.ofSeconds(30), 1,
            UpdateStrategy.HEALTH_CHECKS, Duration.ofSeconds(10), Duration.ofMinutes(5), Duration.ofMinutes(10), 0,
            false, false);

    private UpdateStrategies() {
    }

    /** The merged strategy, or null when neither the job nor the group has an {@code update} block. */
    public static UpdateStrategy of(Job job, TaskGroup group) {
        UpdateStrategy j = job.update();
        UpdateStrategy g = group.update();
        if (j == null && g == null) {
            return null;
        }
        return merge(g, merge(j, DEFAULT));
    }

    /**
     * Whether the group's allocations are replaced through a deployment: a service job, and a strategy with
     * {@code max_parallel > 0} (Nomad's {@code UpdateStrategy.IsEmpty}).
     */
    public static UpdateStrategy rolling(Job job, TaskGroup group) {
        if (!Job.TYPE_SERVICE.equals(job.type())) {
            return null;
        }
        UpdateStrategy s = of(job, group);
        return s == null || s.maxParallel() == null || s.maxParallel() <= 0 ? null : s;
    }

    private static UpdateStrategy merge(UpdateStrategy over, UpdateStrategy under) {
        if (over == null) {
            return under;
        }
        return new UpdateStrategy(
                over.stagger() != null ? over.stagger() : under.stagger(),
                over.maxParallel() != null ? over.maxParallel() : under.maxParallel(),
                over.healthCheck() != null ? over.healthCheck() : under.healthCheck(),
                over.minHealthyTime() != null ? over.minHealthyTime() : under.minHealthyTime(),
                over.healthyDeadline() != null ? over.healthyDeadline() : under.healthyDeadline(),
                over.progressDeadline() != null ? over.progressDeadline() : under.progressDeadline(),
                over.canary() != null ? over.canary() : under.canary(),
                over.autoRevert() != null ? over.autoRevert() : under.autoRevert(),
                over.autoPromote() != null ? over.autoPromote() : under.autoPromote());
    }
}
