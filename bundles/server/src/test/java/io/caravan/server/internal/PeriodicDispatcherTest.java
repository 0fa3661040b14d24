package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.json.NomadJson;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.api.model.JobSummary;
import io.caravan.state.StateSnapshot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The periodic dispatcher with an injected clock: launches on schedule, the earliest of several crons, overlap
 * prohibited, disabled jobs, and a new leader's catch-up (the one latest missed launch, never one already applied).
 * Parents themselves are stored running, without an evaluation, and count their children.
 */
class PeriodicDispatcherTest {
    private final ServerState state = new ServerState();
    private final AtomicLong entries = new AtomicLong();
    private final RaftWrites writes = JobLimitsTest.writes(state, entries);
    private final EvalBrokerTest.MutableClock clock = new EvalBrokerTest.MutableClock(); // 2026-01-01T00:00:00Z
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
    private final PeriodicDispatcher dispatcher = new PeriodicDispatcher(state.store(), writes, clock, timers);

    @AfterEach
    void stop() {
        dispatcher.close();
        timers.shutdownNow();
        state.deactivate();
    }

    static ObjectNode periodicJob(String id, String periodic) throws Exception {
        ObjectNode job = JobLimitsTest.job(id, 1).put("Type", "batch");
        job.set("Periodic", NomadJson.mapper().readTree(periodic));
        return job;
    }

    private Job register(ObjectNode json) throws Exception {
        Job job = Jobs.canonical(JobLimitsTest.wrap(json), "global").withSubmitTime(clock.millis() * 1_000_000L);
        writes.submit(new Command.JobRegister(job, null, false, 0)).toCompletableFuture().get(5, TimeUnit.SECONDS);
        dispatcher.jobChanged(job.namespace(), job.id());
        return job;
    }

    private List<String> children(String parent) {
        return PeriodicJobs.children(state.store().snapshot(), "default", parent).map(Job::id).toList();
    }

    private static String child(String parent, String at) {
        return parent + "/periodic-" + Instant.parse(at).getEpochSecond();
    }

    @Test
    void aParentIsStoredRunningWithoutAnEvaluationAndItsRegistrationCountsAsItsFirstLaunch() throws Exception {
        register(periodicJob("report", "{\"Spec\": \"*/5 * * * *\"}"));
        StateSnapshot s = state.store().snapshot();
        Job stored = s.get(NomadTables.JOBS, NomadTables.key("default", "report")).orElseThrow();
        assertEquals(Job.STATUS_RUNNING, stored.status());
        assertEquals("UTC", stored.periodic().timeZone(), "canonical defaults");
        assertEquals(0, s.count(NomadTables.EVALS), "no evaluation for a parent");
        assertEquals(clock.millis() * 1_000_000L, s.get(PeriodicJobs.LAUNCHES, NomadTables.key("default", "report"))
                .orElseThrow().launch());
        assertEquals(Instant.parse("2026-01-01T00:05:00Z"), dispatcher.nextLaunch("default", "report"));
    }

    @Test
    void aDueLaunchRegistersTheChildWithItsEvaluation() throws Exception {
        register(periodicJob("report", "{\"Spec\": \"*/5 * * * *\"}"));
        clock.advance(Duration.ofMinutes(4));
        dispatcher.tick();
        assertEquals(List.of(), children("report"), "not due yet");

        clock.advance(Duration.ofMinutes(1));
        dispatcher.tick();
        String id = child("report", "2026-01-01T00:05:00Z");
        assertEquals(List.of(id), children("report"));
        StateSnapshot s = state.store().snapshot();
        Job launched = s.get(NomadTables.JOBS, NomadTables.key("default", id)).orElseThrow();
        assertEquals("report", launched.parentId());
        assertNull(launched.periodic(), "the child is not periodic itself");
        assertEquals(id, launched.name());
        Evaluation eval = s.byIndex(NomadTables.EVALS, "job", NomadTables.key("default", id)).findFirst()
                .orElseThrow();
        assertEquals(Evaluation.TRIGGER_PERIODIC_JOB, eval.triggeredBy());
        assertEquals(Instant.parse("2026-01-01T00:05:00Z").toEpochMilli() * 1_000_000L,
                s.get(PeriodicJobs.LAUNCHES, NomadTables.key("default", "report")).orElseThrow().launch());
        JobSummary summary = s.get(NomadTables.JOB_SUMMARIES, NomadTables.key("default", "report")).orElseThrow();
        assertEquals(new JobSummary.Children(1, 0, 0), summary.children(), "the child is pending");
        assertEquals(Instant.parse("2026-01-01T00:10:00Z"), dispatcher.nextLaunch("default", "report"));
    }

    @Test
    void theEarliestOfSeveralCronsInTheJobsTimeZoneComesFirst() throws Exception {
        // Now is 09:00 in Tokyo: 09:30 there (00:30 UTC) comes before 10:00, whatever the order written.
        register(periodicJob("two", "{\"Specs\": [\"0 10 * * *\", \"30 9 * * *\"], \"TimeZone\": \"Asia/Tokyo\"}"));
        assertEquals(Instant.parse("2026-01-01T00:30:00Z"), dispatcher.nextLaunch("default", "two"));
    }

    @Test
    void prohibitOverlapSkipsALaunchWhileAChildIsNotDead() throws Exception {
        register(periodicJob("solo", "{\"Spec\": \"* * * * *\", \"ProhibitOverlap\": true}"));
        clock.advance(Duration.ofMinutes(1));
        dispatcher.tick();
        assertEquals(1, children("solo").size());

        clock.advance(Duration.ofMinutes(1));
        dispatcher.tick();
        assertEquals(1, children("solo").size(), "the first child is still pending");

        markDead(children("solo").get(0));
        clock.advance(Duration.ofMinutes(1));
        dispatcher.tick();
        assertEquals(2, children("solo").size());
        assertEquals(new JobSummary.Children(1, 0, 1), state.store().snapshot().get(NomadTables.JOB_SUMMARIES,
                NomadTables.key("default", "solo")).orElseThrow().children());
    }

    /** Completes the child's evaluation with nothing placed, so that the child is dead. */
    private void markDead(String childId) throws Exception {
        Evaluation eval = state.store().snapshot().byIndex(NomadTables.EVALS, "job",
                NomadTables.key("default", childId)).findFirst().orElseThrow();
        writes.submit(new Command.EvalUpsert(List.of(eval.withStatus(Evaluation.STATUS_COMPLETE, ""))))
                .toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertEquals(Job.STATUS_DEAD, state.store().snapshot().get(NomadTables.JOBS,
                NomadTables.key("default", childId)).orElseThrow().status());
    }

    @Test
    void aDisabledOrStoppedJobIsNotLaunched() throws Exception {
        register(periodicJob("off", "{\"Spec\": \"* * * * *\", \"Enabled\": false}"));
        assertNull(dispatcher.nextLaunch("default", "off"));
        register(periodicJob("stopped", "{\"Spec\": \"* * * * *\"}"));
        writes.submit(new Command.JobDeregister("default", "stopped", false, null)).toCompletableFuture()
                .get(5, TimeUnit.SECONDS);
        dispatcher.jobChanged("default", "stopped");
        assertNull(dispatcher.nextLaunch("default", "stopped"));
        clock.advance(Duration.ofMinutes(3));
        dispatcher.tick();
        assertEquals(List.of(), children("off"));
        assertEquals(List.of(), children("stopped"));
    }

    @Test
    void aNewLeaderLaunchesOnlyTheLatestMissedLaunchAndNeverOneAlreadyApplied() throws Exception {
        register(periodicJob("report", "{\"Spec\": \"*/5 * * * *\"}"));
        clock.advance(Duration.ofMinutes(5));
        dispatcher.tick();
        assertEquals(1, children("report").size());
        dispatcher.close(); // the leader goes away

        // A new leader right away: the launch at 00:05 is recorded, nothing is due.
        PeriodicDispatcher second = new PeriodicDispatcher(state.store(), writes, clock, timers);
        second.restore();
        assertEquals(1, children("report").size(), "no double launch");
        assertEquals(Instant.parse("2026-01-01T00:10:00Z"), second.nextLaunch("default", "report"));
        second.close();

        // No leader from 00:05 to 00:23: the launches at 00:10, 00:15 and 00:20 were missed.
        clock.advance(Duration.ofMinutes(18));
        PeriodicDispatcher third = new PeriodicDispatcher(state.store(), writes, clock, timers);
        third.restore();
        assertEquals(List.of(child("report", "2026-01-01T00:05:00Z"), child("report", "2026-01-01T00:20:00Z")),
                children("report").stream().sorted().toList(), "one catch-up launch, the latest missed");
        assertEquals(Instant.parse("2026-01-01T00:25:00Z"), third.nextLaunch("default", "report"));
        third.close();
    }

    @Test
    void aJobUpdatedWithANewCronLaunchesNextAfterNow() throws Exception {
        register(periodicJob("report", "{\"Spec\": \"0 * * * *\"}"));
        clock.advance(Duration.ofMinutes(30));
        register(periodicJob("report", "{\"Spec\": \"*/20 * * * *\"}"));
        assertEquals(Instant.parse("2026-01-01T00:40:00Z"), dispatcher.nextLaunch("default", "report"));
    }

    @Test
    void aChildsStatusChangesAreCountedOnItsParent() throws Exception {
        register(periodicJob("report", "{\"Spec\": \"*/5 * * * *\"}"));
        clock.advance(Duration.ofMinutes(5));
        dispatcher.tick();
        String id = children("report").get(0);
        markDead(id);
        assertEquals(new JobSummary.Children(0, 0, 1), state.store().snapshot().get(NomadTables.JOB_SUMMARIES,
                NomadTables.key("default", "report")).orElseThrow().children());
        writes.submit(new Command.JobDeregister("default", id, true, null)).toCompletableFuture()
                .get(5, TimeUnit.SECONDS);
        assertEquals(new JobSummary.Children(0, 0, 0), state.store().snapshot().get(NomadTables.JOB_SUMMARIES,
                NomadTables.key("default", "report")).orElseThrow().children(), "a purged child is not counted");
    }
}
