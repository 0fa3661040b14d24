package io.caravan.agent;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Stops the whole agent process, as Nomad's agent exits when it cannot go on (for example when {@code retry_join}
 * used up {@code retry_max} attempts). The reason is printed the way start-up errors are.
 */
@ProviderType
public interface AgentShutdown {
    void shutdown(int exitCode, String reason);
}
