package io.caravan.agent;

import java.nio.file.Path;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The local agent's identity and modes, as configured (PID {@code io.caravan.agent}). A service exists once the
 * agent has read its flags and configuration; it is replaced when they change.
 */
@ProviderType
public interface AgentInfo {
    String name();

    String region();

    String datacenter();

    String nodeId();

    boolean server();

    boolean client();

    boolean devMode();

    String version();

    Path dataDir();

    /** {@code host:port} other agents and clients use to reach this one. */
    String advertiseHttp();

    String advertiseRpc();

    String advertiseSerf();
}
