package io.caravan.client.internal.alloc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.caravan.api.model.AllocDeploymentStatus;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.TaskState;
import io.caravan.api.model.UpdateStrategy;
import io.caravan.client.internal.testing.Fixtures;
import org.junit.jupiter.api.Test;

/** The health decision from task states and time, with the clock in the test's hands. */
class AllocHealthTest {
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private static Map<String, Object> update(String check, Duration min, Duration deadline) {
        Map<String, Object> u = new LinkedHashMap<>();
        u.put("HealthCheck", check);
        if (min != null) {
            u.put("MinHealthyTime", min.toNanos());
        }
        if (deadline != null) {
            u.put("HealthyDeadline", deadline.toNanos());
        }
        return u;
    }

    @SafeVarargs
    private static Allocation alloc(String deploymentId, Map<String, Object> update, Map<String, Object>... tasks) {
        Map<String, Object> extra = update == null ? Map.of() : Map.of("Update", update);
        Allocation a = Fixtures.alloc("n1", "web", "service", extra, tasks);
        return a.toBuilder().deploymentId(deploymentId).build();
    }

    private static Map<String, Object> task(String name, String hook, boolean sidecar) {
        Map<String, Object> t = Fixtures.shTask(name, "sleep 1");
        if (hook != null) {
            t.put("Lifecycle", Map.of("Hook", hook, "Sidecar", sidecar));
        }
        return t;
    }

    private static TaskState running(Instant startedAt) {
        return new TaskState(TaskState.STATE_RUNNING, false, 0, null, startedAt, null, List.of(), null);
    }

    private static TaskState pending() {
        return new TaskState(TaskState.STATE_PENDING, false, 0, null, null, null, List.of(), null);
    }

    private static TaskState dead(boolean failed, Instant startedAt) {
        return new TaskState(TaskState.STATE_DEAD, failed, 0, null, startedAt, startedAt.plusSeconds(1), List.of(),
                null);
    }

    private static AllocHealth tracker(Allocation a) {
        AllocHealth h = AllocHealth.start(a, T0);
        assertNotNull(h);
        return h;
    }

    @Test
    void notTrackedWithoutADeploymentOrWhenManualOrAlreadyKnown() {
        assertNull(AllocHealth.start(alloc(null, update("task_states", null, null), task("web", null, false)), T0));
        assertNull(AllocHealth.start(alloc("", update("task_states", null, null), task("web", null, false)), T0));
        assertNull(AllocHealth.start(alloc("d1", update("manual", null, null), task("web", null, false)), T0));
        Allocation known = alloc("d1", update("checks", null, null), task("web", null, false)).toBuilder()
                .deploymentStatus(new AllocDeploymentStatus(true, T0, false, 5)).build();
        assertNull(AllocHealth.start(known, T0));
        // Canary flag alone (health unknown) is still tracked
        Allocation canary = alloc("d1", update("checks", null, null), task("web", null, false)).toBuilder()
                .deploymentStatus(new AllocDeploymentStatus(null, null, true, 5)).build();
        assertNotNull(AllocHealth.start(canary, T0));
    }

    @Test
    void healthyOnceEveryTaskRanForMinHealthyTime() {
        AllocHealth h = tracker(alloc("d1", update("task_states", Duration.ofSeconds(10), Duration.ofMinutes(5)),
                task("a", null, false), task("b", null, false)));
        Instant aStart = T0.plusSeconds(1);
        Instant bStart = T0.plusSeconds(3);
        Map<String, TaskState> states = Map.of("a", running(aStart), "b", pending());
        AllocHealth.Verdict v = h.evaluate(states, Allocation.CLIENT_RUNNING, T0.plusSeconds(4));
        assertFalse(v.decided());
        assertEquals(T0.plus(Duration.ofMinutes(5)), v.recheckAt(), "waits for the deadline while a task pends");

        states = Map.of("a", running(aStart), "b", running(bStart));
        v = h.evaluate(states, Allocation.CLIENT_RUNNING, T0.plusSeconds(12));
        assertFalse(v.decided(), "b has run 9s only");
        assertEquals(bStart.plusSeconds(10), v.recheckAt());
        v = h.evaluate(states, Allocation.CLIENT_RUNNING, bStart.plusSeconds(10));
        assertEquals(Boolean.TRUE, v.healthy());
    }

    @Test
    void aRestartResetsTheClock() {
        AllocHealth h = tracker(alloc("d1", update("checks", Duration.ofSeconds(10), null), task("a", null, false)));
        // restarted at T0+8: StartedAt moved, so T0+12 is not yet healthy
        TaskState restarted = new TaskState(TaskState.STATE_RUNNING, false, 1, T0.plusSeconds(7),
                T0.plusSeconds(8), null, List.of(), null);
        AllocHealth.Verdict v = h.evaluate(Map.of("a", restarted), Allocation.CLIENT_RUNNING, T0.plusSeconds(12));
        assertFalse(v.decided());
        assertEquals(T0.plusSeconds(18), v.recheckAt());
        assertEquals(Boolean.TRUE,
                h.evaluate(Map.of("a", restarted), Allocation.CLIENT_RUNNING, T0.plusSeconds(18)).healthy());
    }

    @Test
    void aFailedTaskOrAllocIsUnhealthyAtOnce() {
        AllocHealth h = tracker(alloc("d1", update("task_states", null, null),
                task("a", null, false), task("b", null, false)));
        assertEquals(Boolean.FALSE, h.evaluate(Map.of("a", running(T0), "b", dead(true, T0)),
                Allocation.CLIENT_RUNNING, T0.plusSeconds(1)).healthy());
        assertEquals(Boolean.FALSE, h.evaluate(Map.of("a", running(T0), "b", running(T0)),
                Allocation.CLIENT_FAILED, T0.plusSeconds(1)).healthy());
    }

    @Test
    void theHealthyDeadlinePassingFirstIsUnhealthy() {
        AllocHealth h = tracker(alloc("d1", update("task_states", Duration.ofSeconds(30), Duration.ofSeconds(20)),
                task("a", null, false)));
        Map<String, TaskState> states = Map.of("a", running(T0.plusSeconds(1)));
        AllocHealth.Verdict v = h.evaluate(states, Allocation.CLIENT_RUNNING, T0.plusSeconds(2));
        assertFalse(v.decided());
        assertEquals(T0.plusSeconds(20), v.recheckAt(), "the deadline comes before min_healthy_time");
        assertEquals(Boolean.FALSE, h.evaluate(states, Allocation.CLIENT_RUNNING, T0.plusSeconds(20)).healthy());
        assertEquals(Boolean.FALSE, h.evaluate(Map.of("a", pending()), Allocation.CLIENT_PENDING,
                T0.plusSeconds(21)).healthy());
    }

    @Test
    void defaultsAreTenSecondsAndFiveMinutes() {
        AllocHealth h = tracker(alloc("d1", null, task("a", null, false)));
        assertEquals(T0.plus(Duration.ofMinutes(5)), h.deadline());
        AllocHealth.Verdict v = h.evaluate(Map.of("a", running(T0)), Allocation.CLIENT_RUNNING, T0.plusSeconds(1));
        assertEquals(T0.plusSeconds(10), v.recheckAt());
    }

    @Test
    void theJobLevelUpdateBlockAppliesUnderTheGroups() {
        Allocation a = alloc("d1", null, task("a", null, false));
        a = a.toBuilder().job(a.job().toBuilder().update(new UpdateStrategy(null, 1, "manual",
                null, null, null, null, null, null)).build()).build();
        assertNull(AllocHealth.start(a, T0), "health_check = manual inherited from the job");
    }

    @Test
    void finishedPrestartAndPoststartTasksCountAndPoststopIsIgnored() {
        AllocHealth h = tracker(alloc("d1", update("task_states", Duration.ofSeconds(5), null),
                task("init", "prestart", false), task("main", null, false), task("after", "poststart", false),
                task("side", "prestart", true), task("cleanup", "poststop", false)));
        Map<String, TaskState> states = new LinkedHashMap<>();
        states.put("init", dead(false, T0));
        states.put("main", running(T0.plusSeconds(2)));
        states.put("after", dead(false, T0.plusSeconds(3)));
        states.put("side", running(T0.plusSeconds(1)));
        states.put("cleanup", pending());
        assertEquals(Boolean.TRUE, h.evaluate(states, Allocation.CLIENT_RUNNING, T0.plusSeconds(7)).healthy());

        states.put("side", dead(false, T0.plusSeconds(1)));
        AllocHealth.Verdict v = h.evaluate(states, Allocation.CLIENT_RUNNING, T0.plusSeconds(7));
        assertFalse(v.decided(), "a sidecar that stopped counts against health");
        states.put("side", running(T0.plusSeconds(1)));
        states.put("init", dead(true, T0));
        assertEquals(Boolean.FALSE, h.evaluate(states, Allocation.CLIENT_RUNNING, T0.plusSeconds(7)).healthy());
    }

    @Test
    void theDecisionKeepsTheServersCanaryFlag() {
        Allocation a = alloc("d1", null, task("a", null, false)).toBuilder()
                .deploymentStatus(new AllocDeploymentStatus(null, null, true, 42)).build();
        AllocDeploymentStatus s = AllocHealth.decided(a, true, T0);
        assertTrue(s.canary());
        assertEquals(Boolean.TRUE, s.healthy());
        assertEquals(T0, s.timestamp());
        assertEquals(42, s.modifyIndex());
        assertFalse(AllocHealth.decided(alloc("d1", null, task("a", null, false)), false, T0).canary());
    }

    @Test
    void declaredServiceChecksCountUnderChecksOnly() {
        Map<String, Object> t = task("web", null, false);
        t.put("Services", List.of(Map.of("Name", "web", "Checks", List.of(Map.of("Name", "alive", "Type", "tcp")))));
        assertTrue(tracker(alloc("d1", update("checks", null, null), t)).checksCount());
        assertFalse(tracker(alloc("d1", update("task_states", null, null), t)).checksCount(),
                "task_states asks for task states only");
        assertFalse(tracker(alloc("d1", update("checks", null, null), task("web", null, false))).checksCount());
    }

    @Test
    void underChecksTheChecksMustPassForMinHealthyTimeToo() {
        Map<String, Object> t = task("web", null, false);
        t.put("Services", List.of(Map.of("Name", "web", "Checks", List.of(Map.of("Name", "alive", "Type", "tcp")))));
        AllocHealth h = tracker(alloc("d1", update("checks", Duration.ofSeconds(10), Duration.ofMinutes(1)), t));
        Map<String, TaskState> states = Map.of("web", running(T0));
        AllocHealth.Verdict pending = h.evaluate(states, "running", T0.plusSeconds(20), null);
        assertNull(pending.healthy(), "running long enough, but the check has no result yet");
        assertNull(h.evaluate(states, "running", T0.plusSeconds(25), false).healthy(), "a failing check waits");
        AllocHealth.Verdict passing = h.evaluate(states, "running", T0.plusSeconds(30), true);
        assertNull(passing.healthy());
        assertEquals(T0.plusSeconds(40), passing.recheckAt(), "min_healthy_time from when the checks passed");
        assertEquals(Boolean.TRUE, h.evaluate(states, "running", T0.plusSeconds(40), true).healthy());

        AllocHealth failing = tracker(alloc("d1", update("checks", Duration.ofSeconds(10), Duration.ofMinutes(1)), t));
        assertEquals(Boolean.FALSE, failing.evaluate(states, "running", T0.plusSeconds(61), false).healthy(),
                "checks still failing at the healthy deadline");
    }
}
