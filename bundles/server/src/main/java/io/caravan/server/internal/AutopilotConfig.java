package io.caravan.server.internal;

import java.time.Duration;

import io.caravan.api.GoDuration;

/**
 * Nomad's autopilot configuration as {@code /v1/operator/autopilot/configuration} reads and writes it, and as the Raft
 * log stores it (one row). Durations travel as Go duration strings ({@code "200ms"}), as Nomad's API shows them.
 * {@code EnableRedundancyZones}, {@code DisableUpgradeMigration} and {@code EnableCustomUpgrades} are Nomad Enterprise
 * features: kept and shown, as Nomad's open-source servers do, but not acted on (a server logs a warning when one is set).
 */
record AutopilotConfig(boolean cleanupDeadServers, String lastContactThreshold, long maxTrailingLogs, int minQuorum,
                       String serverStabilizationTime, boolean enableRedundancyZones, boolean disableUpgradeMigration,
                       boolean enableCustomUpgrades, long createIndex, long modifyIndex) {

    /** The one row of its table. */
    static final String KEY = "autopilot";

    /** Nomad's defaults. */
    static final AutopilotConfig DEFAULT = new AutopilotConfig(true, "200ms", 250, 0, "10s", false, false, false, 0,
            0);

    AutopilotConfig {
        lastContactThreshold = lastContactThreshold == null || lastContactThreshold.isEmpty() ? "200ms"
                : lastContactThreshold;
        serverStabilizationTime = serverStabilizationTime == null || serverStabilizationTime.isEmpty() ? "10s"
                : serverStabilizationTime;
    }

    AutopilotConfig withIndexes(long create, long modify) {
        return new AutopilotConfig(cleanupDeadServers, lastContactThreshold, maxTrailingLogs, minQuorum,
                serverStabilizationTime, enableRedundancyZones, disableUpgradeMigration, enableCustomUpgrades, create,
                modify);
    }

    Duration lastContact() {
        return duration(lastContactThreshold);
    }

    Duration stabilization() {
        return duration(serverStabilizationTime);
    }

    /** A Go duration, or a bare number of nanoseconds (what Go's encoding of a time.Duration gives). */
    static Duration duration(String text) {
        if (text.matches("\\d+")) {
            return Duration.ofNanos(Long.parseLong(text));
        }
        return GoDuration.parse(text);
    }

    /**
     * The checks an endpoint makes before writing: durations that parse and are not negative, no negative counts;
     * durations stored in Go's canonical form.
     *
     * @throws IllegalArgumentException naming the field
     */
    AutopilotConfig validated() {
        Duration contact = parse(lastContactThreshold, "LastContactThreshold");
        Duration stable = parse(serverStabilizationTime, "ServerStabilizationTime");
        if (maxTrailingLogs < 0) {
            throw new IllegalArgumentException("MaxTrailingLogs: must not be negative");
        }
        if (minQuorum < 0) {
            throw new IllegalArgumentException("MinQuorum: must not be negative");
        }
        return new AutopilotConfig(cleanupDeadServers, GoDuration.format(contact), maxTrailingLogs, minQuorum,
                GoDuration.format(stable), enableRedundancyZones, disableUpgradeMigration, enableCustomUpgrades,
                createIndex, modifyIndex);
    }

    private static Duration parse(String text, String field) {
        Duration d;
        try {
            d = duration(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(field + ": " + e.getMessage());
        }
        if (d.isNegative()) {
            throw new IllegalArgumentException(field + ": must not be negative");
        }
        return d;
    }
}
