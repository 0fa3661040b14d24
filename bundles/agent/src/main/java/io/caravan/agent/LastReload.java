package io.caravan.agent;

import java.time.Instant;

/**
 * The last reload of the agent's configuration: when it ended, and its report, or why it changed nothing.
 *
 * @param report null when the reload failed
 * @param error  null when the reload succeeded
 */
public record LastReload(Instant at, ReloadReport report, String error) {
    public boolean succeeded() {
        return error == null;
    }
}
