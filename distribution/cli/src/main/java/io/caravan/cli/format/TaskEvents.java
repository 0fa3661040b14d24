package io.caravan.cli.format;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

/** A task event's description as {@code alloc status} shows it: its DisplayMessage, else Nomad's wording by type. */
public final class TaskEvents {
    private TaskEvents() {
    }

    public static String describe(JsonNode event) {
        String display = Json.text(event.get("DisplayMessage"));
        if (!display.isEmpty()) {
            return display;
        }
        String message = Json.text(event.get("Message"));
        return switch (Json.text(event.get("Type"))) {
            case "Task Setup" -> message;
            case "Started" -> "Task started by client";
            case "Received" -> "Task received by client";
            case "Failed Validation" -> or(event, "ValidationError", "Validation of task failed");
            case "Setup Failure" -> or(event, "SetupError", "Task setup failed");
            case "Driver Failure" -> or(event, "DriverError", "Failed to start task");
            case "Downloading Artifacts" -> "Client is downloading artifacts";
            case "Failed Artifact Download" -> or(event, "DownloadError", "Failed to download artifacts");
            case "Killing" -> killing(event);
            case "Killed" -> or(event, "KillError", "Task successfully killed");
            case "Terminated" -> terminated(event, message);
            case "Restarting" -> restarting(event);
            case "Not Restarting" -> or(event, "RestartReason", "Task exceeded restart policy");
            case "Sibling Task Failed" -> Json.text(event.get("FailedSibling")).isEmpty() ? "Task's sibling failed"
                    : "Task's sibling " + Nomad.quote(Json.text(event.get("FailedSibling"))) + " failed";
            case "Signaling" -> signaling(event);
            case "Restart Signaled" -> or(event, "RestartReason", "Task signaled to restart");
            case "Driver" -> Json.text(event.get("DriverMessage"));
            case "Leader Task Dead" -> "Leader Task in Group dead";
            case "Reconnected" -> "Client reconnected";
            default -> message;
        };
    }

    private static String killing(JsonNode event) {
        String reason = Json.text(event.get("KillReason"));
        if (!reason.isEmpty()) {
            return "Killing task: " + reason;
        }
        long timeout = event.path("KillTimeout").asLong();
        return timeout != 0 ? "Sent interrupt. Waiting " + GoDuration.format(Duration.ofNanos(timeout))
                + " before force killing" : "Sent interrupt";
    }

    private static String terminated(JsonNode event, String message) {
        List<String> parts = new ArrayList<>();
        parts.add("Exit Code: " + event.path("ExitCode").asLong());
        if (event.path("Signal").asLong() != 0) {
            parts.add("Signal: " + event.path("Signal").asLong());
        }
        if (!message.isEmpty()) {
            parts.add("Exit Message: " + Nomad.quote(message));
        }
        return String.join(", ", parts);
    }

    private static String restarting(JsonNode event) {
        String in = "Task restarting in " + GoDuration.format(Duration.ofNanos(event.path("StartDelay").asLong()));
        String reason = Json.text(event.get("RestartReason"));
        return reason.isEmpty() || reason.equals("Restart within policy") ? in : reason + " - " + in;
    }

    private static String signaling(JsonNode event) {
        String signal = Json.text(event.get("TaskSignal"));
        String reason = Json.text(event.get("TaskSignalReason"));
        if (signal.isEmpty()) {
            return reason.isEmpty() ? "Task being sent a signal" : reason;
        }
        String sending = "Task being sent signal " + signal;
        return reason.isEmpty() ? sending : sending + ": " + reason;
    }

    private static String or(JsonNode event, String field, String fallback) {
        String value = Json.text(event.get(field));
        return value.isEmpty() ? fallback : value;
    }
}
