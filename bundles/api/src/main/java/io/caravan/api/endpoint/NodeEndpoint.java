package io.caravan.api.endpoint;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.Node;
import io.caravan.api.model.ServiceRegistration;
import org.osgi.annotation.versioning.ProviderType;

/**
 * What a client node asks of the servers (Nomad's {@code Node.Register}, {@code Node.UpdateStatus},
 * {@code Node.UpdateAlloc}, {@code Node.GetClientAllocs} and {@code Alloc.GetAllocs}). Every call but register
 * authenticates with the node's secret; a wrong secret fails with {@code PERMISSION_DENIED}. Failures complete the
 * stage exceptionally with a {@link io.caravan.api.CaravanException}.
 */
@ProviderType
public interface NodeEndpoint {

    /**
     * Registers or re-registers a node (its {@code SecretID} set). A new node starts {@code initializing}; a node
     * that missed heartbeats is never made {@code ready} by registering again (ARCHITECTURE §5).
     */
    CompletionStage<NodeUpdateResponse> register(Node node);

    /** A heartbeat, or a status change the node asks for ({@code ready}, {@code initializing}, {@code down}). */
    CompletionStage<NodeUpdateResponse> updateStatus(String nodeId, String secretId, String status);

    /**
     * The client's side of its allocations: client status and description, task states; only those fields of each
     * given allocation are read. Completes with the Raft index that recorded them.
     */
    CompletionStage<Long> updateAllocs(String nodeId, String secretId, List<Allocation> updates);

    /**
     * A blocking query: the node's allocations as {@code id → AllocModifyIndex}, answered once the allocs table
     * passes {@code minIndex} for this node or {@code maxWait} elapses.
     */
    CompletionStage<ClientAllocs> clientAllocs(String nodeId, String secretId, long minIndex, Duration maxWait);

    /** Full allocations (with their job) by ID; unknown IDs are left out. */
    CompletionStage<List<Allocation>> allocs(String nodeId, String secretId, List<String> allocIds);

    /**
     * Nomad's {@code ServiceRegistration.Upsert} and {@code ServiceRegistration.DeleteByID} from a client: registers
     * (replacing by ID) the services of its running allocations, then removes {@code deleteIds}. Only services of
     * this node's allocations are accepted. Completes with the Raft index of the last write (0: nothing to write).
     */
    CompletionStage<Long> updateServices(String nodeId, String secretId, List<ServiceRegistration> upserts,
                                         List<String> deleteIds);

    /**
     * Nomad's {@code Alloc.SignIdentities}: JWTs for task identities of this node's live allocations, signed by the
     * keyring with the workload's claims (the default identity always exists; another must be declared by the
     * task). An allocation of another node fails with {@code PERMISSION_DENIED}, a terminal one or an undeclared
     * identity with {@code BAD_REQUEST}. Servers without this call complete exceptionally.
     */
    default CompletionStage<List<SignedIdentity>> signIdentities(String nodeId, String secretId,
                                                                List<IdentityRequest> requests) {
        return java.util.concurrent.CompletableFuture.failedFuture(new io.caravan.api.CaravanException(
                io.caravan.api.ErrorCode.NOT_IMPLEMENTED, "this server does not sign workload identities"));
    }

    /** One identity to sign: task {@code task}'s identity {@code identityName} in allocation {@code allocId}. */
    record IdentityRequest(String allocId, String task, String identityName) {}

    /** A signed identity; {@code expiresAtSeconds} is its {@code exp} (Unix seconds), 0 when it never expires. */
    record SignedIdentity(String allocId, String task, String identityName, String jwt, long expiresAtSeconds) {}

    /**
     * What a register or heartbeat returns: how soon the next heartbeat is due, the index of the write, and the
     * servers the client should know (RPC addresses, leader first).
     */
    record NodeUpdateResponse(Duration heartbeatTtl, long index, List<String> servers) {
        public NodeUpdateResponse {
            servers = List.copyOf(servers);
        }
    }

    /** Nomad's {@code NodeClientAllocsResponse}: alloc ID → its AllocModifyIndex, and the query's index. */
    record ClientAllocs(Map<String, Long> allocs, long index) {
        public ClientAllocs {
            allocs = Map.copyOf(allocs);
        }
    }
}
