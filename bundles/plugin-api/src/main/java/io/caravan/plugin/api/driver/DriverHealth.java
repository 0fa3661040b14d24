package io.caravan.plugin.api.driver;

import java.util.Map;

/** A driver's health as a node reports it: detected, healthy, why, and the driver's node attributes. */
public record DriverHealth(State state, String description, Map<String, String> attributes) {
    public enum State { UNDETECTED, UNHEALTHY, HEALTHY }

    public DriverHealth {
        attributes = Map.copyOf(attributes);
    }

    public static DriverHealth healthy(Map<String, String> attributes) {
        return new DriverHealth(State.HEALTHY, "Healthy", attributes);
    }

    public static DriverHealth undetected(String description) {
        return new DriverHealth(State.UNDETECTED, description, Map.of());
    }
}
