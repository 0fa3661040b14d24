package io.caravan.agent;

import java.util.concurrent.CompletionStage;

import io.caravan.http.ApiRequest;
import io.caravan.http.ApiResponse;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * Reloads another agent of the cluster, for {@code PUT /v1/agent/reload?node_id=…} or {@code ?server_id=…} when the
 * agent named is not this one. Provided by the server bundle, which knows the nodes and servers and how to reach
 * them; without it an agent knows only itself. The caller is already authorized ({@code agent:write}) where the call
 * entered; the answer is the target's reload report, or its error.
 */
@ConsumerType
public interface RemoteReload {
    /** Reloads the client node {@code nodeId}; fails with {@code NOT_FOUND} ("Unknown node") if no server knows it. */
    CompletionStage<ApiResponse> node(String nodeId, ApiRequest request);

    /**
     * Reloads the server named {@code server}: its member name ({@code name.region}), its name, its node ID, or
     * {@code leader}; fails with {@code NOT_FOUND} ("Unknown server") when no member is so named.
     */
    CompletionStage<ApiResponse> server(String server, ApiRequest request);
}
