package io.caravan.agent;

import java.util.List;

/**
 * What a reload did: the configuration keys whose values changed, those applied to the running agent, and those
 * that only take effect after a restart (they keep their running value), with how long it took.
 */
public record ReloadReport(List<String> changed, List<String> applied, List<String> restartRequired,
                           double elapsedMs) {
    public ReloadReport {
        changed = List.copyOf(changed);
        applied = List.copyOf(applied);
        restartRequired = List.copyOf(restartRequired);
    }
}
