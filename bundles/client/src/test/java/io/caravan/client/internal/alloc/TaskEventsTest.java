package io.caravan.client.internal.alloc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;

import io.caravan.api.model.TaskEvent;
import io.caravan.client.internal.testing.Fixtures.MutableClock;
import io.caravan.plugin.api.driver.ExitResult;
import org.junit.jupiter.api.Test;

/** Display messages as Nomad's PopulateEventDisplayMessage writes them. */
class TaskEventsTest {
    private final TaskEvents events = new TaskEvents(new MutableClock(Instant.ofEpochSecond(100, 5)));

    @Test
    void displayMessages() {
        assertEquals("Task received by client", events.received().displayMessage());
        assertEquals("Task started by client", events.started().displayMessage());
        assertEquals("Exit Code: 0", events.terminated(new ExitResult(0, 0, false, null)).displayMessage());
        assertEquals("Exit Code: 137, Signal: 9, Exit Message: \"boom\"",
                events.terminated(new ExitResult(137, 9, false, "boom")).displayMessage());
        assertEquals("Task restarting in 15s",
                events.restarting(Duration.ofSeconds(15), RestartTracker.REASON_WITHIN_POLICY).displayMessage());
        assertEquals("Exceeded allowed attempts, applying a delay - Task restarting in 1m0s",
                events.restarting(Duration.ofMinutes(1), RestartTracker.REASON_DELAY).displayMessage());
        assertEquals("Sent interrupt. Waiting 5s before force killing",
                events.killing(Duration.ofSeconds(5)).displayMessage());
        assertEquals("Task successfully killed", events.killed(null).displayMessage());
        assertEquals("Task's sibling \"web\" failed", events.siblingFailed("web").displayMessage());
        assertEquals("Leader Task in Group dead", events.leaderDead().displayMessage());
        assertEquals("Main tasks in the group died", events.mainDead().displayMessage());
        assertEquals("Task being sent a signal", events.signaling("SIGHUP").displayMessage());
        assertEquals("SIGHUP", events.signaling("SIGHUP").details().get("signal"));
        assertEquals("User requested task to restart",
                events.restartSignal("User requested task to restart").displayMessage());
    }

    @Test
    void detailsAndFlatFields() {
        TaskEvent e = events.notRestarting("Policy allows no restarts");
        assertTrue(e.failsTask());
        assertEquals("true", e.details().get("fails_task"));
        assertEquals("Policy allows no restarts", e.details().get("restart_reason"));
        assertEquals(100_000_000_005L, e.time());
        TaskEvent t = events.terminated(new ExitResult(3, 0, false, null));
        assertEquals(3, t.exitCode());
        assertEquals("3", t.details().get("exit_code"));
    }
}
