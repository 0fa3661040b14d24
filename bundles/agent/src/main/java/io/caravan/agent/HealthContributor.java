package io.caravan.agent;

import java.util.Optional;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Part of {@code /v1/agent/health}: a bundle that knows whether the server (or the client) side of this agent
 * works says so. The agent reports a kind healthy only when every contributor of that kind has no problem.
 */
@ConsumerType
public interface HealthContributor {
    String SERVER = "server";
    String CLIENT = "client";

    /** {@link #SERVER} or {@link #CLIENT}. */
    String kind();

    /** What is wrong, in Nomad's words (e.g. {@code No cluster leader}); empty when healthy. */
    Optional<String> problem();
}
