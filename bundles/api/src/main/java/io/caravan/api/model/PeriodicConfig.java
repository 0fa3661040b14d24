package io.caravan.api.model;

import java.util.List;

public record PeriodicConfig(
        Boolean enabled,
        String spec,
        List<String> specs,
        String specType,
        Boolean prohibitOverlap,
        String timeZone) {
    public static final String SPEC_CRON = "cron";

    public PeriodicConfig {
        specs = Copy.list(specs);
    }
}
