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

    /**
     * {@link #clientAllocs} for a client that keeps what it was told: only the allocations whose AllocModifyIndex is
     * above {@code knownIndex} (the index of the last answer it applied; 0: all of them), with
     * {@link ClientAllocs#total} the number the node has in all. Everything the node has is then either known to the
     * client or in the answer, so a client that counts a different number after adding the answer's knows that some
     * were removed and asks again with 0. The full list costs the server a map of every allocation of the node per
     * answer, and a node's allocations grow with the cluster's age: quadratic over a node's life. Servers without it
     * answer the full list, which is also a valid answer.
     */
    default CompletionStage<ClientAllocs> clientAllocs(String nodeId, String secretId, long minIndex, long knownIndex,
                                                       Duration maxWait) {
        return clientAllocs(nodeId, secretId, minIndex, maxWait);
    }

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
     * A blocking query for a task's templates ({@code nomadVar}, {@code nomadVarList}, {@code nomadVarExists}): the
     * variables at {@code paths} (absent ones left out) and the metadata of those under each of {@code prefixes}, in
     * the allocation's namespace, answered once the variables table passes {@code minIndex} or {@code maxWait}
     * elapses. The node must run the allocation, and every path and prefix must lie within what the task's workload
     * identity may read (Nomad's implicit policy, {@code nomad/jobs/<job>/<group>/<task>} and its parents);
     * {@code PERMISSION_DENIED} otherwise.
     */
    CompletionStage<TaskVariables> taskVariables(String nodeId, String secretId, String allocId, String task,
                                                 List<String> paths, List<String> prefixes, long minIndex,
                                                 Duration maxWait);

    /**
     * A blocking query for a task's templates ({@code nomadService}, {@code nomadServices}): the registrations of the
     * services {@code names} (every service when empty) in the allocation's namespace, answered once the service
     * registrations table passes {@code minIndex} or {@code maxWait} elapses. The node must run the allocation.
     */
    CompletionStage<TaskServices> taskServices(String nodeId, String secretId, String allocId, List<String> names,
                                               long minIndex, Duration maxWait);

    /** A variable as a template reads it ({@code items} empty for a listed variable's metadata). */
    record TaskVariable(String namespace, String path, Map<String, String> items, long createIndex, long createTime,
                        long modifyIndex, long modifyTime) {
        public TaskVariable {
            items = items == null ? Map.of() : Map.copyOf(items);
        }
    }

    /** What {@link #taskVariables} answers: the variables read, those listed per prefix, and the query's index. */
    record TaskVariables(List<TaskVariable> variables, Map<String, List<TaskVariable>> listed, long index) {
        public TaskVariables {
            variables = variables == null ? List.of() : List.copyOf(variables);
            listed = listed == null ? Map.of() : Map.copyOf(listed);
        }
    }

    /** What {@link #taskServices} answers: the registrations and the query's index. */
    record TaskServices(List<ServiceRegistration> services, long index) {
        public TaskServices {
            services = services == null ? List.of() : List.copyOf(services);
        }
    }

    /**
     * Registers a node presenting a JWT (Nomad 1.11's client introduction): a client introduction token on the
     * node's first registration, later the node identity a server signed for it (so a node the servers forgot can
     * come back). The token is checked only for a node the servers do not know, is never stored, and an empty one
     * is the same as {@link #register(Node)}. When {@code server.client_introduction.enforcement} refuses the node
     * the stage fails with {@code PERMISSION_DENIED}. The default is for implementations that know no introduction:
     * it drops the token.
     */
    default CompletionStage<NodeUpdateResponse> register(Node node, String introToken) {
        return register(node);
    }

    /**
     * What a register or heartbeat returns: how soon the next heartbeat is due, the index of the write, and the
     * servers the client should know (RPC addresses, leader first); {@code signedIdentity}: a node identity JWT the
     * server signed for the node (Nomad 1.11), empty when it issued none this time.
     */
    record NodeUpdateResponse(Duration heartbeatTtl, long index, List<String> servers, String signedIdentity) {
        public NodeUpdateResponse {
            servers = List.copyOf(servers);
            signedIdentity = signedIdentity == null ? "" : signedIdentity;
        }

        /** A reply without a new node identity. */
        public NodeUpdateResponse(Duration heartbeatTtl, long index, List<String> servers) {
            this(heartbeatTtl, index, servers, "");
        }

        /** This reply with the node identity the server signed for the node (Nomad's {@code SignedIdentity}). */
        public NodeUpdateResponse withIdentity(String jwt) {
            return new NodeUpdateResponse(heartbeatTtl, index, servers, jwt);
        }
    }

    /**
     * Nomad's {@code NodeClientAllocsResponse}: alloc ID → its AllocModifyIndex, and the query's index; {@code total}
     * is how many allocations the node has (more than {@code allocs} holds in an answer with only the changed ones).
     */
    record ClientAllocs(Map<String, Long> allocs, long index, int total) {
        public ClientAllocs {
            allocs = Map.copyOf(allocs);
        }

        /** The full list. */
        public ClientAllocs(Map<String, Long> allocs, long index) {
            this(allocs, index, allocs.size());
        }
    }
}
