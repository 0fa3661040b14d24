package io.caravan.consensus;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Registered while this server is the Raft leader and has applied every entry of earlier terms; withdrawn as soon as
 * it is not. Leader-only duties (eval broker, plan applier, heartbeat timers) are components with a mandatory
 * reference to it: DS starts them on the new leader and stops them on the old one.
 */
@ProviderType
public interface Leadership {
    /** The Raft term this server leads. */
    long term();
}
