package io.caravan.agent;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The one way to reload this agent's configuration, used by SIGHUP, {@code PUT /v1/agent/reload} and
 * {@code caravan config reload}: every file and flag is read and checked again, then everything that can change
 * live is applied at once, or nothing is.
 */
@ProviderType
public interface AgentConfigService {
    /**
     * @throws io.caravan.api.CaravanException {@code BAD_REQUEST} naming file, line and column when the
     *         configuration does not parse or validate; nothing changes then
     */
    ReloadReport reload();

    /**
     * The configuration in force, in Nomad's keys as decoded: blocks are maps, durations are
     * {@link java.time.Duration}, labelled blocks are maps by label. Keys that need a restart show their running
     * value.
     */
    java.util.Map<String, Object> configuration();

    /** The keys the configuration in force sets that Caravan does not act on yet, in the order they were read. */
    java.util.List<UnsupportedKey> unsupported();

    /** How the last reload since start went, if there was one. @since 1.6 */
    default java.util.Optional<LastReload> lastReload() {
        return java.util.Optional.empty();
    }
}
