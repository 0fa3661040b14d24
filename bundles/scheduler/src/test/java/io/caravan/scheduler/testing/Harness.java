package io.caravan.scheduler.testing;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.scheduler.Scheduler;
import io.caravan.scheduler.SchedulerException;
import io.caravan.scheduler.internal.GenericScheduler;
import io.caravan.scheduler.internal.SystemScheduler;
import io.caravan.scheduler.internal.placement.PlacementPipeline;

/** Nomad's scheduler test Harness: an in-memory state, a recording planner, a fixed clock and counted IDs. */
public final class Harness {
    public static final Instant NOW = Instant.parse("2026-01-01T12:00:00Z");
    public static final long NOW_NANOS = NOW.getEpochSecond() * 1_000_000_000L;

    public final InMemoryState state = new InMemoryState();
    public final RecordingPlanner planner = new RecordingPlanner(state);
    public final Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);
    private final AtomicInteger ids = new AtomicInteger();
    public final Supplier<String> idSource = () -> String.format("00000000-0000-0000-0000-%012d", ids.incrementAndGet());

    public Scheduler scheduler(String type) {
        switch (type) {
            case Job.TYPE_SYSTEM:
            case Job.TYPE_SYSBATCH:
                return new SystemScheduler(type.equals(Job.TYPE_SYSBATCH), state, planner, clock, idSource,
                        PlacementPipeline.standard());
            default:
                return new GenericScheduler(type.equals(Job.TYPE_BATCH), state, planner, clock, idSource,
                        PlacementPipeline.standard());
        }
    }

    /** Registers nothing: processes an eval for {@code job} (already in state, or purged) of the job's type. */
    public Evaluation process(Job job, String trigger) throws SchedulerException {
        Evaluation eval = Evaluation.forJob("eval-" + trigger + "-" + state.index(), job, trigger, NOW_NANOS);
        scheduler(job.type()).process(eval);
        return eval;
    }
}
