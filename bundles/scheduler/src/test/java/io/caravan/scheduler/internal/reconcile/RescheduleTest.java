package io.caravan.scheduler.internal.reconcile;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.Job;
import io.caravan.api.model.ReschedulePolicy;
import io.caravan.api.model.RescheduleTracker;
import io.caravan.scheduler.testing.TestAllocs;
import io.caravan.scheduler.testing.TestJobs;

class RescheduleTest {
    private static final Instant FAILED_AT = Instant.parse("2026-01-01T12:00:00Z");
    private static final long FAILED_NANOS = FAILED_AT.getEpochSecond() * 1_000_000_000L;

    private static Allocation failedWith(ReschedulePolicy policy, long... pastDelaysSeconds) {
        Job job = TestJobs.job("app").group(TestJobs.group("web", 1).reschedule(policy).build()).build();
        List<RescheduleTracker.Event> events = new ArrayList<>();
        for (int i = 0; i < pastDelaysSeconds.length; i++) {
            // Past reschedules, a second apart, the last one a second before this failure.
            long at = FAILED_NANOS - Duration.ofSeconds(pastDelaysSeconds.length - i).toNanos();
            events.add(new RescheduleTracker.Event(at, "p" + i, "n" + i, Duration.ofSeconds(pastDelaysSeconds[i])));
        }
        return TestAllocs.failed(job, "f", 0, "n1", FAILED_AT, events.isEmpty() ? null : new RescheduleTracker(events));
    }

    private static ReschedulePolicy policy(String function, long delaySeconds, long maxDelaySeconds) {
        return TestJobs.reschedule(0, Duration.ZERO, Duration.ofSeconds(delaySeconds), function,
                Duration.ofSeconds(maxDelaySeconds), true);
    }

    static Stream<Arguments> delays() {
        return Stream.of(
                Arguments.of("constant, first", policy("constant", 5, 0), new long[0], 5),
                Arguments.of("constant, later", policy("constant", 5, 0), new long[] {5, 5}, 5),
                Arguments.of("exponential, first", policy("exponential", 5, 100), new long[0], 5),
                Arguments.of("exponential doubles", policy("exponential", 5, 100), new long[] {5, 10}, 20),
                Arguments.of("exponential capped", policy("exponential", 5, 30), new long[] {20}, 30),
                Arguments.of("fibonacci, second", policy("fibonacci", 5, 100), new long[] {5}, 5),
                Arguments.of("fibonacci sums", policy("fibonacci", 5, 100), new long[] {5, 5, 10}, 15),
                Arguments.of("fibonacci capped", policy("fibonacci", 5, 20), new long[] {10, 15}, 20),
                Arguments.of("fibonacci restarts after a reset", policy("fibonacci", 5, 20), new long[] {20, 5}, 5));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("delays")
    void nextDelay(String name, ReschedulePolicy policy, long[] past, long expectedSeconds) {
        Allocation alloc = failedWith(policy, past);
        assertEquals(Duration.ofSeconds(expectedSeconds), Reschedule.nextDelay(alloc, policy));
    }

    @Test
    void cappedDelayResetsAfterALongRun() {
        // Last reschedule an hour before this failure, delay already at the cap: start over at the base delay.
        ReschedulePolicy p = policy("exponential", 5, 30);
        Job job = TestJobs.job("app").group(TestJobs.group("web", 1).reschedule(p).build()).build();
        RescheduleTracker tracker = new RescheduleTracker(List.of(new RescheduleTracker.Event(
                FAILED_NANOS - Duration.ofHours(1).toNanos(), "p", "n", Duration.ofSeconds(30))));
        Allocation alloc = TestAllocs.failed(job, "f", 0, "n1", FAILED_AT, tracker);
        assertEquals(Duration.ofSeconds(5), Reschedule.nextDelay(alloc, p));
    }

    static Stream<Arguments> eligibility() {
        ReschedulePolicy twoPerHour = TestJobs.reschedule(2, Duration.ofHours(1), Duration.ofSeconds(5),
                "constant", null, false);
        ReschedulePolicy none = TestJobs.reschedule(0, Duration.ZERO, Duration.ofSeconds(5), "constant", null, false);
        return Stream.of(
                Arguments.of("attempts left", twoPerHour, new long[] {5}, true),
                Arguments.of("attempts used", twoPerHour, new long[] {5, 5}, false),
                Arguments.of("no attempts, not unlimited", none, new long[0], false),
                Arguments.of("unlimited", policy("constant", 5, 0), new long[] {5, 5, 5, 5, 5, 5}, true));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("eligibility")
    void eligible(String name, ReschedulePolicy policy, long[] past, boolean expected) {
        Reschedule.Eligibility e = Reschedule.nextRescheduleTime(failedWith(policy, past));
        assertEquals(expected, e.eligible());
        if (expected) {
            assertEquals(FAILED_NANOS + Duration.ofSeconds(5).toNanos(), e.timeNanos());
        }
    }

    @Test
    void trackerKeepsRecentEventsAndAddsThisOne() {
        ReschedulePolicy p = TestJobs.reschedule(3, Duration.ofMinutes(90), Duration.ofSeconds(5), "constant", null,
                false);
        Allocation prev = failedWith(p, 5, 5);
        RescheduleTracker t = Reschedule.trackerFor(prev, FAILED_NANOS);
        assertEquals(3, t.events().size());
        RescheduleTracker.Event last = t.events().get(2);
        assertEquals("f", last.prevAllocId());
        assertEquals("n1", last.prevNodeId());
        assertEquals(FAILED_NANOS, last.rescheduleTime());

        ReschedulePolicy unlimited = policy("constant", 5, 0);
        Allocation many = failedWith(unlimited, 5, 5, 5, 5, 5, 5, 5);
        assertEquals(Reschedule.MAX_PAST_EVENTS + 1, Reschedule.trackerFor(many, FAILED_NANOS).events().size());
    }

    @Test
    void completedAllocIsNotRescheduled() {
        Job job = TestJobs.job("app").build();
        assertEquals(false, Reschedule.nextRescheduleTime(TestAllocs.complete(job, "c", 0, "n1")).eligible());
    }
}
