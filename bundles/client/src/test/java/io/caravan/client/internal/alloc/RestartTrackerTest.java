package io.caravan.client.internal.alloc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.Random;

import io.caravan.api.model.RestartPolicy;
import io.caravan.api.model.TaskLifecycle;
import io.caravan.client.internal.alloc.RestartTracker.Decision;
import io.caravan.client.internal.alloc.RestartTracker.Outcome;
import io.caravan.client.internal.testing.Fixtures.MutableClock;
import io.caravan.plugin.api.driver.ExitResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RestartTrackerTest {
    private static final ExitResult OK = new ExitResult(0, 0, false, null);
    private static final ExitResult FAIL = new ExitResult(1, 0, false, null);

    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));

    private RestartTracker tracker(int attempts, String mode, String jobType, TaskLifecycle lifecycle) {
        return new RestartTracker(new RestartPolicy(Duration.ofMinutes(1), attempts, Duration.ofSeconds(10), mode,
                false), jobType, lifecycle, clock, new Random(1));
    }

    /** exits, in order, until the decision in the last column; then what that decision is. */
    @ParameterizedTest(name = "{0} {1} attempts={2} exit={3}: restarts={4} then {5}")
    @CsvSource({
            // job type, mode, attempts, exit code, restarts allowed, final decision
            "service, fail,  2, 1, 2, NOT_RESTARTING",
            "service, fail,  2, 0, 2, NOT_RESTARTING",   // service tasks restart even after exit 0
            "batch,   fail,  3, 1, 3, NOT_RESTARTING",
            "batch,   fail,  3, 0, 0, TERMINATED",       // batch exit 0: done, not failed
            "service, fail,  0, 1, 0, NOT_RESTARTING",
            "batch,   fail,  0, 0, 0, TERMINATED",
            "service, delay, 2, 1, 2, RESTART",          // delay mode: waits for the interval instead of failing
    })
    void decisions(String jobType, String mode, int attempts, int exitCode, int restarts, Decision last) {
        RestartTracker t = tracker(attempts, mode, jobType, null);
        ExitResult exit = new ExitResult(exitCode, 0, false, null);
        for (int i = 0; i < restarts; i++) {
            Outcome o = t.exited(exit);
            assertEquals(Decision.RESTART, o.decision(), "attempt " + (i + 1));
            assertEquals(RestartTracker.REASON_WITHIN_POLICY, o.reason());
            assertTrue(o.delay().compareTo(Duration.ofSeconds(10)) >= 0
                    && o.delay().compareTo(Duration.ofMillis(12_500)) <= 0, "delay + up to 25% jitter: " + o.delay());
        }
        Outcome o = t.exited(exit);
        assertEquals(last, o.decision());
    }

    @Test
    void failModeReasonMatchesNomad() {
        RestartTracker t = tracker(1, "fail", "service", null);
        t.exited(FAIL);
        assertEquals("Exceeded allowed attempts 1 in interval 1m0s and mode is \"fail\"", t.exited(FAIL).reason());
    }

    @Test
    void delayModeWaitsForTheRestOfTheInterval() {
        RestartTracker t = tracker(1, "delay", "service", null);
        t.exited(FAIL);
        clock.advance(Duration.ofSeconds(20));
        Outcome o = t.exited(FAIL);
        assertEquals(Decision.RESTART, o.decision());
        assertEquals(RestartTracker.REASON_DELAY, o.reason());
        assertEquals(Duration.ofSeconds(40), o.delay());
    }

    @Test
    void aNewIntervalResetsTheCount() {
        RestartTracker t = tracker(1, "fail", "service", null);
        assertEquals(Decision.RESTART, t.exited(FAIL).decision());
        clock.advance(Duration.ofMinutes(2));
        assertEquals(Decision.RESTART, t.exited(FAIL).decision());
        assertEquals(Decision.NOT_RESTARTING, t.exited(FAIL).decision());
    }

    @Test
    void lifecycleTasksFollowTheirSidecarFlag() {
        assertEquals(Decision.TERMINATED,
                tracker(2, "fail", "service", new TaskLifecycle("prestart", false)).exited(OK).decision());
        assertEquals(Decision.RESTART,
                tracker(2, "fail", "batch", new TaskLifecycle("prestart", true)).exited(OK).decision());
        assertEquals(Decision.TERMINATED,
                tracker(2, "fail", "service", new TaskLifecycle("poststop", false)).exited(OK).decision());
    }

    @Test
    void startErrorsRestartUnlessUnrecoverable() {
        RestartTracker t = tracker(2, "fail", "service", null);
        assertEquals(Decision.RESTART, t.startFailed(true).decision());
        Outcome o = t.startFailed(false);
        assertEquals(Decision.NOT_RESTARTING, o.decision());
        assertEquals(RestartTracker.REASON_UNRECOVERABLE, o.reason());
    }

    @Test
    void defaultsAreNomadsPerJobType() {
        RestartPolicy service = RestartTracker.withDefaults(null, "service");
        assertEquals(2, service.attempts());
        assertEquals(Duration.ofMinutes(30), service.interval());
        assertEquals(Duration.ofSeconds(15), service.delay());
        assertEquals("fail", service.mode());
        RestartPolicy batch = RestartTracker.withDefaults(null, "batch");
        assertEquals(3, batch.attempts());
        assertEquals(Duration.ofHours(24), batch.interval());
    }
}
