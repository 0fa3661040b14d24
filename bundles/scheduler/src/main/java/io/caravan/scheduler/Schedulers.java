package io.caravan.scheduler;

import java.time.Clock;

/** The scheduler for each evaluation type: {@code service}, {@code batch}, {@code system}, {@code sysbatch}. */
public final class Schedulers {
    private Schedulers() {
    }

    /**
     * @param type  the evaluation's type (the job's)
     * @param clock the time reschedule delays and allocation times are computed from
     * @throws IllegalArgumentException for an unknown type
     */
    public static Scheduler create(String type, SchedulerState state, Planner planner, Clock clock) {
        throw new UnsupportedOperationException("not yet implemented: " + type);
    }
}
