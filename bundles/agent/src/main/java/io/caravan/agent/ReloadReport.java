package io.caravan.agent;

import java.util.List;

/**
 * What a reload did: the configuration keys whose values changed, those applied to the running agent, and those
 * that only take effect after a restart (they keep their running value), with how long it took; and the keys the
 * configuration sets that Caravan does not act on yet.
 */
public record ReloadReport(List<String> changed, List<String> applied, List<String> restartRequired,
                           double elapsedMs, List<UnsupportedKey> unsupported) {
    public ReloadReport {
        changed = List.copyOf(changed);
        applied = List.copyOf(applied);
        restartRequired = List.copyOf(restartRequired);
        unsupported = List.copyOf(unsupported);
    }

    /** A report without unsupported keys (the shape before 1.4). */
    public ReloadReport(List<String> changed, List<String> applied, List<String> restartRequired, double elapsedMs) {
        this(changed, applied, restartRequired, elapsedMs, List.of());
    }
}
