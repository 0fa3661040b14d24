package io.caravan.client.internal.hooks;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.caravan.api.endpoint.NodeEndpoint.IdentityRequest;
import io.caravan.api.endpoint.NodeEndpoint.SignedIdentity;

/** Where a client gets its tasks' workload identities signed: the servers ({@code Alloc.SignIdentities}). */
@FunctionalInterface
public interface IdentitySigner {
    /** A signer for runners without servers (tests): a task that exposes an identity fails to start. */
    IdentitySigner NONE = requests -> CompletableFuture.failedFuture(
            new IllegalStateException("this client has no server to sign workload identities"));

    CompletionStage<List<SignedIdentity>> sign(List<IdentityRequest> requests);
}
