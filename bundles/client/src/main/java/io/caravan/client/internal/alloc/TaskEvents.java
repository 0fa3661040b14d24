package io.caravan.client.internal.alloc;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import io.caravan.api.GoDuration;
import io.caravan.api.model.TaskEvent;
import io.caravan.plugin.api.driver.ExitResult;

/**
 * Builds Nomad's task events: the type, the {@code Details} map, the deprecated flat fields, and the
 * {@code DisplayMessage} exactly as Nomad's {@code PopulateEventDisplayMessage} writes it.
 */
public final class TaskEvents {
    private final Clock clock;

    public TaskEvents(Clock clock) {
        this.clock = clock;
    }

    public TaskEvent received() {
        return event(TaskEvent.RECEIVED).display("Task received by client").build();
    }

    public TaskEvent setup(String message) {
        return event(TaskEvent.TASK_SETUP).message(message).display(message).build();
    }

    public TaskEvent started() {
        return event(TaskEvent.STARTED).display("Task started by client").build();
    }

    public TaskEvent terminated(ExitResult exit) {
        Builder b = event(TaskEvent.TERMINATED);
        b.exitCode = exit.exitCode();
        b.details.put("exit_code", Integer.toString(exit.exitCode()));
        b.signal = exit.signal();
        b.details.put("signal", Integer.toString(exit.signal()));
        b.details.put("oom_killed", Boolean.toString(exit.oomKilled()));
        StringBuilder display = new StringBuilder("Exit Code: ").append(exit.exitCode());
        if (exit.signal() != 0) {
            display.append(", Signal: ").append(exit.signal());
        }
        if (exit.error() != null && !exit.error().isEmpty()) {
            b.message = exit.error();
            b.details.put("exit_message", exit.error());
            display.append(", Exit Message: \"").append(exit.error().replace("\"", "\\\"")).append('"');
        }
        return b.display(display.toString()).build();
    }

    public TaskEvent restarting(Duration delay, String reason) {
        Builder b = event(TaskEvent.RESTARTING);
        b.startDelay = delay.toNanos();
        b.details.put("start_delay", Long.toString(delay.toNanos()));
        b.restartReason(reason);
        String in = "Task restarting in " + GoDuration.format(delay);
        return b.display(reason != null && !reason.isEmpty() && !RestartTracker.REASON_WITHIN_POLICY.equals(reason)
                ? reason + " - " + in : in).build();
    }

    public TaskEvent notRestarting(String reason) {
        Builder b = event(TaskEvent.NOT_RESTARTING).failsTask();
        b.restartReason(reason);
        return b.display(reason == null || reason.isEmpty() ? "Task exceeded restart policy" : reason).build();
    }

    public TaskEvent killing(Duration killTimeout) {
        Builder b = event(TaskEvent.KILLING);
        b.killTimeout = killTimeout;
        b.details.put("kill_timeout", GoDuration.format(killTimeout));
        return b.display(killTimeout.isZero() ? "Sent interrupt"
                : "Sent interrupt. Waiting " + GoDuration.format(killTimeout) + " before force killing").build();
    }

    public TaskEvent waitingShutdownDelay(Duration delay) {
        return event(TaskEvent.WAITING_SHUTDOWN_DELAY).display("Waiting for shutdown_delay of "
                + GoDuration.format(delay) + " before killing the task.").build();
    }

    public TaskEvent skippingShutdownDelay(Duration delay) {
        return event(TaskEvent.SKIP_SHUTDOWN_DELAY).display("Skipping shutdown_delay of "
                + GoDuration.format(delay) + " before killing the task.").build();
    }

    public TaskEvent killed(String killError) {
        Builder b = event(TaskEvent.KILLED);
        if (killError != null && !killError.isEmpty()) {
            b.killError = killError;
            b.details.put("kill_error", killError);
            return b.display(killError).build();
        }
        return b.display("Task successfully killed").build();
    }

    public TaskEvent driverFailure(String error) {
        Builder b = event(TaskEvent.DRIVER_FAILURE);
        b.driverError = error;
        b.details.put("driver_error", error);
        return b.display(error == null || error.isEmpty() ? "Failed to start task" : error).build();
    }

    public TaskEvent setupFailure(String error) {
        return setupFailure(error, false);
    }

    /** {@code failsTask}: the task cannot run at all (Nomad's MarkFailedKill, e.g. the alloc dir failed). */
    public TaskEvent setupFailure(String error, boolean failsTask) {
        Builder b = event(TaskEvent.SETUP_FAILURE);
        if (failsTask) {
            b.failsTask();
        }
        b.setupError = error;
        b.details.put("setup_error", error);
        return b.display(error == null || error.isEmpty() ? "Task setup failed" : error).build();
    }

    public TaskEvent hookFailed(String message) {
        return event(TaskEvent.HOOK_FAILED).message(message).display(message).build();
    }

    public TaskEvent downloadingArtifacts() {
        return event(TaskEvent.DOWNLOADING_ARTIFACTS).display("Client is downloading artifacts").build();
    }

    public TaskEvent artifactDownloadFailed(String error) {
        Builder b = event(TaskEvent.ARTIFACT_DOWNLOAD_FAILED);
        b.downloadError = error;
        b.details.put("download_error", error);
        return b.display(error == null || error.isEmpty() ? "Failed to download artifacts" : error).build();
    }

    public TaskEvent siblingFailed(String sibling) {
        Builder b = event(TaskEvent.SIBLING_FAILED);
        b.failedSibling = sibling;
        b.details.put("failed_sibling", sibling);
        return b.display("Task's sibling \"" + sibling + "\" failed").build();
    }

    public TaskEvent leaderDead() {
        return event(TaskEvent.LEADER_DEAD).display("Leader Task in Group dead").build();
    }

    public TaskEvent mainDead() {
        return event(TaskEvent.MAIN_DEAD).display("Main tasks in the group died").build();
    }

    public TaskEvent restartSignal(String reason) {
        Builder b = event(TaskEvent.RESTART_SIGNAL);
        b.restartReason(reason);
        return b.display(reason == null || reason.isEmpty() ? "Task signaled to restart" : reason).build();
    }

    /** {@code alloc signal}: Nomad records the signal in the details only, so the text is the generic one. */
    public TaskEvent signaling(String signal) {
        Builder b = event(TaskEvent.SIGNALING);
        b.details.put("signal", signal);
        return b.display("Task being sent a signal").build();
    }

    /** Nomad's {@code Task hook message}: what a hook tells the user (a template waiting for data, a script's result). */
    public TaskEvent hookMessage(String message) {
        return event(TaskEvent.HOOK_MESSAGE).display(message).build();
    }

    /** A signal a hook sends (a template's {@code change_mode = "signal"}), with the hook's own text. */
    public TaskEvent signaling(String signal, String display) {
        Builder b = event(TaskEvent.SIGNALING);
        b.details.put("signal", signal);
        return b.display(display).build();
    }

    /** A kill a hook asks for because the task cannot go on (a template that fails): fails the task. */
    public TaskEvent killingFailed(String display) {
        return event(TaskEvent.KILLING).failsTask().display(display).build();
    }

    public TaskEvent restoreFailed(String error) {
        Builder b = event(TaskEvent.TASK_RESTORE_FAILED);
        b.message = error;
        b.details.put("message", error);
        return b.display(error).build();
    }

    private Builder event(String type) {
        return new Builder(type, clock.instant());
    }

    /** TaskEvent has two dozen fields; this sets the few an event uses. */
    private static final class Builder {
        final String type;
        final long time;
        final Map<String, String> details = new LinkedHashMap<>();
        String message = "";
        String display = "";
        boolean failsTask;
        String restartReason = "";
        String setupError = "";
        String driverError = "";
        int exitCode;
        int signal;
        Duration killTimeout = Duration.ZERO;
        String killError = "";
        long startDelay;
        String downloadError = "";
        String failedSibling = "";

        Builder(String type, Instant at) {
            this.type = type;
            this.time = at.getEpochSecond() * 1_000_000_000L + at.getNano();
        }

        Builder message(String message) {
            this.message = message;
            details.put("message", message);
            return this;
        }

        Builder display(String display) {
            this.display = display;
            return this;
        }

        Builder failsTask() {
            failsTask = true;
            details.put("fails_task", "true");
            return this;
        }

        void restartReason(String reason) {
            if (reason != null && !reason.isEmpty()) {
                restartReason = reason;
                details.put("restart_reason", reason);
            }
        }

        TaskEvent build() {
            return new TaskEvent(type, time, message, display, details, failsTask, restartReason, setupError,
                    driverError, exitCode, signal, killTimeout, killError, "", startDelay, downloadError, "", 0,
                    failedSibling, "", "", "", "", "");
        }
    }
}
