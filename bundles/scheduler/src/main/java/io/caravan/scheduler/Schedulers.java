package io.caravan.scheduler;

import java.time.Clock;
import java.util.UUID;
import java.util.function.Supplier;

import io.caravan.api.model.Job;
import io.caravan.scheduler.internal.GenericScheduler;
import io.caravan.scheduler.internal.SystemScheduler;
import io.caravan.scheduler.internal.placement.PlacementPipeline;

/** The scheduler for each evaluation type: {@code service}, {@code batch}, {@code system}, {@code sysbatch}. */
public final class Schedulers {
    private static final Supplier<String> RANDOM_IDS = () -> UUID.randomUUID().toString();

    private Schedulers() {
    }

    /**
     * @param type  the evaluation's type (the job's)
     * @param clock the time reschedule delays and allocation times are computed from
     * @throws IllegalArgumentException for an unknown type
     */
    public static Scheduler create(String type, SchedulerState state, Planner planner, Clock clock) {
        PlacementPipeline pipeline = PlacementPipeline.standard();
        switch (type == null ? "" : type) {
            case Job.TYPE_SERVICE:
                return new GenericScheduler(false, state, planner, clock, RANDOM_IDS, pipeline);
            case Job.TYPE_BATCH:
                return new GenericScheduler(true, state, planner, clock, RANDOM_IDS, pipeline);
            case Job.TYPE_SYSTEM:
                return new SystemScheduler(false, state, planner, clock, RANDOM_IDS, pipeline);
            case Job.TYPE_SYSBATCH:
                return new SystemScheduler(true, state, planner, clock, RANDOM_IDS, pipeline);
            default:
                throw new IllegalArgumentException("unknown scheduler type: " + type);
        }
    }
}
