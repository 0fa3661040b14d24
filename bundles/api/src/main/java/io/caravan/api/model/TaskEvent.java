package io.caravan.api.model;

import java.time.Duration;
import java.util.Map;

/**
 * One entry of a task's event history. {@code Time} is Unix nanoseconds. The flat fields after {@code Details}
 * are deprecated in Nomad but still written, so old clients keep working.
 */
public record TaskEvent(
        String type,
        long time,
        String message,
        String displayMessage,
        Map<String, String> details,
        boolean failsTask,
        String restartReason,
        String setupError,
        String driverError,
        int exitCode,
        int signal,
        @NanoDuration Duration killTimeout,
        String killError,
        String killReason,
        long startDelay,
        String downloadError,
        String validationError,
        long diskLimit,
        String failedSibling,
        String vaultError,
        String taskSignalReason,
        String taskSignal,
        String driverMessage,
        String genericSource) {

    public static final String RECEIVED = "Received";
    public static final String TASK_SETUP = "Task Setup";
    public static final String BUILDING_TASK_DIR = "Building Task Directory";
    public static final String DOWNLOADING_ARTIFACTS = "Downloading Artifacts";
    public static final String ARTIFACT_DOWNLOAD_FAILED = "Failed Artifact Download";
    public static final String SETUP_FAILURE = "Setup Failure";
    public static final String DRIVER_FAILURE = "Driver Failure";
    public static final String FAILED_VALIDATION = "Failed Validation";
    public static final String STARTED = "Started";
    public static final String DRIVER_MESSAGE = "Driver";
    public static final String HOOK_MESSAGE = "Task hook message";
    public static final String HOOK_FAILED = "Task hook failed";
    public static final String TERMINATED = "Terminated";
    public static final String RESTART_SIGNAL = "Restart Signaled";
    public static final String RESTARTING = "Restarting";
    public static final String NOT_RESTARTING = "Not Restarting";
    public static final String SIGNALING = "Signaling";
    public static final String KILLING = "Killing";
    public static final String KILLED = "Killed";
    public static final String WAITING_SHUTDOWN_DELAY = "Waiting for shutdown delay";
    public static final String SKIP_SHUTDOWN_DELAY = "Skipping shutdown delay";
    public static final String SIBLING_FAILED = "Sibling Task Failed";
    public static final String LEADER_DEAD = "Leader Task Dead";
    public static final String MAIN_DEAD = "Main Tasks Dead";
    public static final String DISK_EXCEEDED = "Disk Resources Exceeded";
    public static final String TASK_RESTORE_FAILED = "Failed Restoring Task";
    public static final String PLUGIN_UNHEALTHY = "Plugin became unhealthy";
    public static final String PLUGIN_HEALTHY = "Plugin became healthy";
    public static final String RECONNECTED = "Reconnected";

    public TaskEvent {
        killTimeout = killTimeout == null ? Duration.ZERO : killTimeout;
        details = Copy.map(details);
    }
}
