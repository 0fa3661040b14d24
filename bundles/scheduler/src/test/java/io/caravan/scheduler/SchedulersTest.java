package io.caravan.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.scheduler.testing.InMemoryState;
import io.caravan.scheduler.testing.RecordingPlanner;
import io.caravan.scheduler.testing.TestJobs;
import io.caravan.scheduler.testing.TestNodes;

/** The exported entry point, end to end: the server's view. */
class SchedulersTest {
    @Test
    void serviceEvalThroughThePublicFactory() throws SchedulerException {
        InMemoryState state = new InMemoryState().node(TestNodes.node("n1").build()).node(TestNodes.node("n2").build());
        Job job = TestJobs.job("web").group(TestJobs.group("web", 2).build()).build();
        state.job(job);
        RecordingPlanner planner = new RecordingPlanner(state);
        Clock clock = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);
        Evaluation eval = Evaluation.forJob(UUID.randomUUID().toString(), job, Evaluation.TRIGGER_JOB_REGISTER, 0);

        Schedulers.create(job.type(), state, planner, clock).process(eval);

        assertEquals(2, planner.placedAllocs().size());
        for (Allocation a : planner.placedAllocs()) {
            assertEquals(a.id(), UUID.fromString(a.id()).toString(), "random UUIDs");
            assertEquals(clock.instant().getEpochSecond() * 1_000_000_000L, a.createTime());
        }
        assertEquals(Evaluation.STATUS_COMPLETE, planner.lastUpdate().status());
        assertEquals(state.allAllocs().size(), 2);
    }

    @Test
    void unknownTypeIsRejected() {
        InMemoryState state = new InMemoryState();
        assertThrows(IllegalArgumentException.class,
                () -> Schedulers.create("bogus", state, new RecordingPlanner(state), Clock.systemUTC()));
        assertThrows(IllegalArgumentException.class,
                () -> Schedulers.create(null, state, new RecordingPlanner(state), Clock.systemUTC()));
    }
}
