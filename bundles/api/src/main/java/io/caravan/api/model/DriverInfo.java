package io.caravan.api.model;

import java.time.Instant;
import java.util.Map;

/** {@code Node.Drivers[<name>]}: the scheduler needs {@code Detected} and {@code Healthy}. */
public record DriverInfo(
        Map<String, String> attributes,
        boolean detected,
        boolean healthy,
        String healthDescription,
        @GoTime Instant updateTime) {
    public DriverInfo {
        attributes = Copy.map(attributes);
    }
}
