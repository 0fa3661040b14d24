package io.caravan.scheduler.internal.reconcile;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.Job;
import io.caravan.api.model.ReschedulePolicy;
import io.caravan.api.model.RescheduleTracker;
import io.caravan.api.model.TaskGroup;
import io.caravan.api.model.TaskState;

/**
 * Nomad's reschedule arithmetic for a failed allocation: when it may be replaced ({@code NextRescheduleTime}),
 * after which delay ({@code NextDelay}: constant, exponential or fibonacci, capped by {@code max_delay}), and the
 * {@code RescheduleTracker} its replacement carries.
 */
public final class Reschedule {
    /** Unlimited policies keep only the most recent events. */
    static final int MAX_PAST_EVENTS = 5;

    private Reschedule() {
    }

    /** When an allocation may be rescheduled, and whether it may be at all. */
    public record Eligibility(boolean eligible, long timeNanos) {
        static final Eligibility NEVER = new Eligibility(false, 0);
    }

    /** The policy of the allocation's own job version (the one it failed under). */
    public static ReschedulePolicy policyOf(Allocation alloc) {
        Job job = alloc.job();
        if (job == null) {
            return null;
        }
        for (TaskGroup tg : job.taskGroups()) {
            if (tg.name().equals(alloc.taskGroup())) {
                return tg.reschedulePolicy();
            }
        }
        return null;
    }

    /** When the allocation stopped: the last task finish, or its modify time when no task says. */
    public static long lastEventTimeNanos(Allocation alloc) {
        long last = 0;
        for (TaskState state : alloc.taskStates().values()) {
            if (state != null && state.finishedAt() != null) {
                long t = state.finishedAt().getEpochSecond() * 1_000_000_000L + state.finishedAt().getNano();
                last = Math.max(last, t);
            }
        }
        return last != 0 ? last : alloc.modifyTime();
    }

    /** Nomad's {@code NextRescheduleTime}. */
    public static Eligibility nextRescheduleTime(Allocation alloc) {
        ReschedulePolicy policy = policyOf(alloc);
        long failTime = lastEventTimeNanos(alloc);
        if (Allocation.DESIRED_STOP.equals(alloc.desiredStatus())
                || !Allocation.CLIENT_FAILED.equals(alloc.clientStatus()) || failTime == 0 || policy == null) {
            return Eligibility.NEVER;
        }
        Duration delay = nextDelay(alloc, policy);
        int attempts = attempts(policy);
        List<RescheduleTracker.Event> events = events(alloc);
        boolean eligible = Boolean.TRUE.equals(policy.unlimited()) || (attempts > 0 && events.isEmpty());
        if (attempts > 0 && !events.isEmpty()) {
            Duration interval = orZero(policy.interval());
            int attempted = 0;
            for (RescheduleTracker.Event event : events) {
                if (failTime - event.rescheduleTime() < interval.toNanos()) {
                    attempted++;
                }
            }
            eligible = attempted < attempts && delay.compareTo(interval) < 0;
        }
        return new Eligibility(eligible, failTime + delay.toNanos());
    }

    /** Nomad's {@code NextDelay}. */
    public static Duration nextDelay(Allocation alloc, ReschedulePolicy policy) {
        Duration base = orZero(policy.delay());
        List<RescheduleTracker.Event> events = events(alloc);
        if (events.isEmpty()) {
            return base;
        }
        RescheduleTracker.Event last = events.get(events.size() - 1);
        Duration delay;
        String function = policy.delayFunction() == null ? ReschedulePolicy.DELAY_CONSTANT : policy.delayFunction();
        switch (function) {
            case ReschedulePolicy.DELAY_EXPONENTIAL:
                delay = last.delay().multipliedBy(2);
                break;
            case ReschedulePolicy.DELAY_FIBONACCI:
                delay = fibonacci(events, policy);
                break;
            default:
                return base;
        }
        Duration max = orZero(policy.maxDelay());
        if (!max.isZero() && delay.compareTo(max) > 0) {
            delay = max;
            // Once the delay has hit the ceiling and the allocation then ran longer than that, start over.
            if (lastEventTimeNanos(alloc) - last.rescheduleTime() > delay.toNanos()) {
                delay = base;
            }
        }
        return delay;
    }

    private static Duration fibonacci(List<RescheduleTracker.Event> events, ReschedulePolicy policy) {
        Duration n1 = events.get(events.size() - 1).delay();
        if (events.size() < 2) {
            return n1;
        }
        Duration n2 = events.get(events.size() - 2).delay();
        // A reset (ceiling followed by the base delay) starts a new series.
        if (n2.equals(orZero(policy.maxDelay())) && n1.equals(orZero(policy.delay()))) {
            return n1;
        }
        return n1.plus(n2);
    }

    /** The tracker for {@code prev}'s replacement: recent past events plus one for this reschedule. */
    public static RescheduleTracker trackerFor(Allocation prev, long nowNanos) {
        ReschedulePolicy policy = policyOf(prev);
        List<RescheduleTracker.Event> kept = new ArrayList<>();
        List<RescheduleTracker.Event> past = events(prev);
        if (policy != null && attempts(policy) > 0) {
            long interval = orZero(policy.interval()).toNanos();
            for (RescheduleTracker.Event e : past) {
                if (interval > 0 && nowNanos - e.rescheduleTime() <= interval) {
                    kept.add(e);
                }
            }
        } else {
            kept.addAll(past.subList(Math.max(0, past.size() - MAX_PAST_EVENTS), past.size()));
        }
        Duration delay = policy == null ? Duration.ZERO : nextDelay(prev, policy);
        kept.add(new RescheduleTracker.Event(nowNanos, prev.id(), prev.nodeId(), delay));
        return new RescheduleTracker(kept);
    }

    private static List<RescheduleTracker.Event> events(Allocation alloc) {
        return alloc.rescheduleTracker() == null ? List.of() : alloc.rescheduleTracker().events();
    }

    private static int attempts(ReschedulePolicy policy) {
        return policy.attempts() == null ? 0 : policy.attempts();
    }

    private static Duration orZero(Duration d) {
        return d == null ? Duration.ZERO : d;
    }
}
