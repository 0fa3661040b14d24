package io.caravan.http;

import java.util.concurrent.CompletionStage;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Offered by a server: what the API dispatcher waits for before it runs a write ({@link ApiEndpoint.Routing#LOCAL}
 * routes, any method but {@code GET}). A write's handler checks this server's state first (the job to evaluate, the
 * node to drain, the deployment to fail must exist); on a follower that state may lag a write the leader already
 * acknowledged, and the check would answer a false 404. One mechanism for every write route, so none can forget it.
 */
@ConsumerType
public interface WriteBarrier {
    /**
     * Completes once this server has applied every write the cluster had committed when it was called; fails (Nomad's
     * {@code No cluster leader}, 500) when no leader answers in time.
     */
    CompletionStage<Void> beforeWrite();
}
