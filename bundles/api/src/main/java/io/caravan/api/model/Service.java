package io.caravan.api.model;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/** A {@code service} block (group or task level). {@code Connect}, {@code Identity} and {@code Weights} are kept raw. */
public record Service(
        String name,
        List<String> tags,
        List<String> canaryTags,
        boolean enableTagOverride,
        String portLabel,
        String addressMode,
        String address,
        List<ServiceCheck> checks,
        CheckRestart checkRestart,
        Map<String, Object> connect,
        Map<String, String> meta,
        Map<String, String> canaryMeta,
        Map<String, String> taggedAddresses,
        String taskName,
        String onUpdate,
        Map<String, Object> identity,
        Map<String, Object> weights,
        String provider,
        String cluster,
        String kind) {
    public static final String PROVIDER_CONSUL = "consul";
    public static final String PROVIDER_NOMAD = "nomad";
    public static final String ON_UPDATE_REQUIRE_HEALTHY = "require_healthy";
    public static final String ON_UPDATE_IGNORE_WARNINGS = "ignore_warnings";
    public static final String ON_UPDATE_IGNORE = "ignore";

    public Service {
        tags = Copy.list(tags);
        canaryTags = Copy.list(canaryTags);
        checks = Copy.list(checks);
        connect = Copy.rawOrNull(connect);
        meta = Copy.map(meta);
        canaryMeta = Copy.map(canaryMeta);
        taggedAddresses = Copy.map(taggedAddresses);
        identity = Copy.rawOrNull(identity);
        weights = Copy.rawOrNull(weights);
    }

    public record CheckRestart(int limit, @NanoDuration Duration grace, boolean ignoreWarnings) {
    }
}
