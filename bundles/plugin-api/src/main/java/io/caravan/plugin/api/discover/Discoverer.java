package io.caravan.plugin.api.discover;

import java.util.List;
import java.util.Map;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * One go-discover provider. Register one service per provider, identified by the service property
 * {@code caravan.discover.provider} ({@link DiscoverProvider}). Callers parse the configured string with
 * {@link DiscoverString#parse(String)} and pick the service whose property equals
 * {@link DiscoverString#provider()}.
 *
 * <p>Lookups are re-run on every join attempt (Nomad re-evaluates discovery strings each time), so implementations
 * must not cache results across calls.
 */
@ConsumerType
public interface Discoverer {

    /**
     * Resolves the addresses to join.
     *
     * @param args the string's arguments without {@code provider} (keys lower-case), e.g. {@code name}, {@code port}
     * @return {@code host:port} entries ({@code [v6]:port} for IPv6 literals), in the provider's order; empty when
     *         nothing was found
     * @throws IllegalArgumentException when a required argument is missing or malformed
     * @throws Exception when the lookup itself fails (network, I/O)
     */
    List<String> addresses(Map<String, String> args) throws Exception;
}
