package io.caravan.api.model;

import java.time.Instant;
import java.util.Map;

/** One of a node's last ten events. */
public record NodeEvent(String message, String subsystem, Map<String, String> details, @GoTime Instant timestamp, long createIndex) {
    public static final String SUBSYSTEM_DRAIN = "Drain";
    public static final String SUBSYSTEM_DRIVER = "Driver";
    public static final String SUBSYSTEM_HEARTBEAT = "Heartbeat";
    public static final String SUBSYSTEM_CLUSTER = "Cluster";
    public static final String SUBSYSTEM_SCHEDULER = "Scheduler";

    public NodeEvent {
        details = Copy.map(details);
    }
}
