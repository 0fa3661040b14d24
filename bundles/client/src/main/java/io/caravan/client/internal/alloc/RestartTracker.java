package io.caravan.client.internal.alloc;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Random;

import io.caravan.api.GoDuration;
import io.caravan.api.model.Job;
import io.caravan.api.model.RestartPolicy;
import io.caravan.api.model.TaskLifecycle;
import io.caravan.plugin.api.driver.ExitResult;

/**
 * Nomad's restart policy for one task (client/allocrunner/taskrunner/restarts): after each exit or failed start it
 * decides whether to restart, after what delay, and why. Up to {@code attempts} restarts within {@code interval},
 * each after {@code delay} plus up to 25 % jitter; then {@code mode = "fail"} gives up and {@code "delay"} waits
 * for the interval to end. Batch tasks (and non-sidecar lifecycle tasks) that exit 0 are not restarted; service
 * tasks are, whatever their exit code.
 */
public final class RestartTracker {
    public static final String REASON_NO_RESTARTS_ALLOWED = "Policy allows no restarts";
    public static final String REASON_UNRECOVERABLE = "Error was unrecoverable";
    public static final String REASON_WITHIN_POLICY = "Restart within policy";
    public static final String REASON_DELAY = "Exceeded allowed attempts, applying a delay";
    public static final String REASON_SUCCESS = "Restart unnecessary as task terminated successfully";
    static final double JITTER = 0.25;

    /** What to do next: {@link #RESTART} after the delay, or stay dead ({@link #NOT_RESTARTING} fails the task). */
    public enum Decision { RESTART, NOT_RESTARTING, TERMINATED, KILLED }

    public record Outcome(Decision decision, Duration delay, String reason) {
    }

    private final RestartPolicy policy;
    private final boolean restartOnSuccess;
    private final Clock clock;
    private final Random random;
    private Instant intervalStart;
    private int count;

    public RestartTracker(RestartPolicy policy, String jobType, TaskLifecycle lifecycle, Clock clock, Random random) {
        this.policy = withDefaults(policy, jobType);
        this.restartOnSuccess = restartOnSuccess(jobType, lifecycle);
        this.clock = clock;
        this.random = random;
        this.intervalStart = clock.instant();
    }

    /** Nomad's defaults (NOMAD-REFERENCE §5.5): service/system 2 in 30m, batch/sysbatch 3 in 24h; 15s; fail. */
    static RestartPolicy withDefaults(RestartPolicy p, String jobType) {
        boolean batch = Job.TYPE_BATCH.equals(jobType) || Job.TYPE_SYSBATCH.equals(jobType);
        Duration interval = p != null && p.interval() != null ? p.interval()
                : batch ? Duration.ofHours(24) : Duration.ofMinutes(30);
        int attempts = p != null && p.attempts() != null ? p.attempts() : batch ? 3 : 2;
        Duration delay = p != null && p.delay() != null ? p.delay() : Duration.ofSeconds(15);
        String mode = p != null && p.mode() != null && !p.mode().isEmpty() ? p.mode() : RestartPolicy.MODE_FAIL;
        return new RestartPolicy(interval, attempts, delay, mode, p == null ? Boolean.FALSE : p.renderTemplates());
    }

    static boolean restartOnSuccess(String jobType, TaskLifecycle lifecycle) {
        boolean onSuccess = !(Job.TYPE_BATCH.equals(jobType) || Job.TYPE_SYSBATCH.equals(jobType));
        if (lifecycle != null && lifecycle.hook() != null && !lifecycle.hook().isEmpty()) {
            onSuccess = !TaskLifecycle.HOOK_POSTSTOP.equals(lifecycle.hook()) && lifecycle.sidecar();
        }
        return onSuccess;
    }

    public RestartPolicy policy() {
        return policy;
    }

    /** The task exited on its own. */
    public synchronized Outcome exited(ExitResult exit) {
        if (policy.attempts() == 0) {
            return !restartOnSuccess && exit.successful()
                    ? new Outcome(Decision.TERMINATED, Duration.ZERO, REASON_NO_RESTARTS_ALLOWED)
                    : new Outcome(Decision.NOT_RESTARTING, Duration.ZERO, REASON_NO_RESTARTS_ALLOWED);
        }
        countAttempt();
        if (exit.successful() && !restartOnSuccess) {
            return new Outcome(Decision.TERMINATED, Duration.ZERO, REASON_SUCCESS);
        }
        return restartWithinPolicy();
    }

    /** The task could not be set up or started; {@code recoverable} errors restart per policy. */
    public synchronized Outcome startFailed(boolean recoverable) {
        if (policy.attempts() == 0) {
            return new Outcome(Decision.NOT_RESTARTING, Duration.ZERO, REASON_NO_RESTARTS_ALLOWED);
        }
        countAttempt();
        if (!recoverable) {
            return new Outcome(Decision.NOT_RESTARTING, Duration.ZERO, REASON_UNRECOVERABLE);
        }
        return restartWithinPolicy();
    }

    private void countAttempt() {
        Instant now = clock.instant();
        if (now.isAfter(intervalStart.plus(policy.interval()))) {
            count = 0;
            intervalStart = now;
        }
        count++;
    }

    private Outcome restartWithinPolicy() {
        if (count > policy.attempts()) {
            if (RestartPolicy.MODE_FAIL.equals(policy.mode())) {
                return new Outcome(Decision.NOT_RESTARTING, Duration.ZERO, String.format(
                        "Exceeded allowed attempts %d in interval %s and mode is \"fail\"", policy.attempts(),
                        GoDuration.format(policy.interval())));
            }
            Duration untilNextInterval = Duration.between(clock.instant(), intervalStart.plus(policy.interval()));
            return new Outcome(Decision.RESTART, untilNextInterval.isNegative() ? Duration.ZERO : untilNextInterval,
                    REASON_DELAY);
        }
        return new Outcome(Decision.RESTART, jittered(), REASON_WITHIN_POLICY);
    }

    private Duration jittered() {
        long delay = Math.max(1, policy.delay().toNanos());
        long jitter = (long) (random.nextDouble() * delay * JITTER);
        return Duration.ofNanos(delay + jitter);
    }
}
