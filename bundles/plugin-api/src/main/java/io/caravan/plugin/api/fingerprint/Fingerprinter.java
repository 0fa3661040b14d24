package io.caravan.plugin.api.fingerprint;

import java.time.Duration;
import java.util.Optional;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Learns facts about the host. The client remembers which attributes each fingerprinter contributed, so when its
 * bundle leaves, exactly those attributes leave the node.
 */
@ConsumerType
public interface Fingerprinter {

    /** @param soFar what earlier fingerprinters (the host phase, then env) found in this round */
    FingerprintResult fingerprint(HostFacts soFar) throws Exception;

    /** Nomad's {@code Periodic()}: empty runs once (and again on reload). */
    default Optional<Duration> period() {
        return Optional.empty();
    }
}
