package io.caravan.rpc.internal;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import io.caravan.api.endpoint.NodeEndpoint;
import io.caravan.api.endpoint.NodeEndpoint.ClientAllocs;
import io.caravan.api.endpoint.NodeEndpoint.NodeUpdateResponse;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Node;
import io.caravan.api.model.ServiceRegistration;
import io.caravan.rpc.Endpoint;
import io.caravan.rpc.Endpoint.Routing;
import io.caravan.rpc.Rpc;

/**
 * {@link NodeEndpoint} over RPC, both ends in one place: the records each call travels as, the endpoints a server
 * declares for a local {@code NodeEndpoint} ({@link #endpoints}), and the {@code NodeEndpoint} a client-only agent
 * calls servers through ({@link Remote}). Writes and heartbeats run on the leader, where the heartbeat timers are;
 * the reads are served by any server.
 */
final class NodeRpc {
    static final String REGISTER = "Node.Register";
    static final String UPDATE_STATUS = "Node.UpdateStatus";
    static final String UPDATE_ALLOC = "Node.UpdateAlloc";
    static final String GET_CLIENT_ALLOCS = "Node.GetClientAllocs";
    static final String GET_ALLOCS = "Alloc.GetAllocs";
    static final String UPDATE_SERVICES = "ServiceRegistration.Upsert";
    static final String TASK_VARIABLES = "Variables.TaskRead";
    static final String TASK_SERVICES = "ServiceRegistration.TaskRead";
    static final String SIGN_IDENTITIES = "Alloc.SignIdentities";

    /** {@code introToken}: the JWT the node presents (Nomad 1.11), empty or absent for none; never logged. */
    record RegisterRequest(Node node, String introToken) {}

    record UpdateStatusRequest(String nodeId, String secretId, String status) {}

    /** {@link NodeUpdateResponse} on the wire (durations as milliseconds). */
    record UpdateResponse(long heartbeatTtlMillis, long index, List<String> servers, String signedIdentity) {
        static UpdateResponse of(NodeUpdateResponse r) {
            return new UpdateResponse(r.heartbeatTtl().toMillis(), r.index(), r.servers(), r.signedIdentity());
        }

        NodeUpdateResponse toResponse() {
            return new NodeUpdateResponse(Duration.ofMillis(heartbeatTtlMillis), index, servers == null ? List.of() : servers,
                    signedIdentity);
        }
    }

    record UpdateAllocRequest(String nodeId, String secretId, List<Allocation> allocs) {}

    record IndexResponse(long index) {}

    /** {@code knownIndex}: only what changed after it (0, or absent from an older client: the full list). */
    record ClientAllocsRequest(String nodeId, String secretId, long minIndex, long maxWaitMillis, long knownIndex) {}

    /** {@code total}: how many the node has (absent from an older server, whose answer is the full list). */
    record ClientAllocsResponse(Map<String, Long> allocs, long index, int total) {
        ClientAllocs answer() {
            return total == 0 ? new ClientAllocs(allocs, index) : new ClientAllocs(allocs, index, total);
        }
    }

    record GetAllocsRequest(String nodeId, String secretId, List<String> allocIds) {}

    record AllocsResponse(List<Allocation> allocs) {}

    record UpdateServicesRequest(String nodeId, String secretId, List<ServiceRegistration> upserts,
                                 List<String> deleteIds) {}

    record TaskVariablesRequest(String nodeId, String secretId, String allocId, String task, List<String> paths,
                                List<String> prefixes, long minIndex, long maxWaitMillis) {}

    record TaskServicesRequest(String nodeId, String secretId, String allocId, List<String> names, long minIndex,
                               long maxWaitMillis) {}

    record SignIdentitiesRequest(String nodeId, String secretId, List<NodeEndpoint.IdentityRequest> identities) {}

    record SignIdentitiesResponse(List<NodeEndpoint.SignedIdentity> signed) {}

    private NodeRpc() {
    }

    /**
     * What a server serves for its local endpoint. Replies tell the client every server of the region, leader first,
     * when the server knows them ({@code servers} non-empty), so clients follow the cluster as it changes.
     */
    static List<Endpoint<?, ?>> endpoints(NodeEndpoint local, Supplier<List<String>> servers) {
        return List.of(
                new Endpoint<>(REGISTER, RegisterRequest.class, UpdateResponse.class, Routing.LEADER,
                        q -> local.register(q.node(), q.introToken() == null ? "" : q.introToken())
                                .thenApply(r -> withServers(r, servers))),
                new Endpoint<>(UPDATE_STATUS, UpdateStatusRequest.class, UpdateResponse.class, Routing.LEADER,
                        q -> local.updateStatus(q.nodeId(), q.secretId(), q.status())
                                .thenApply(r -> withServers(r, servers))),
                new Endpoint<>(UPDATE_ALLOC, UpdateAllocRequest.class, IndexResponse.class, Routing.LEADER,
                        q -> local.updateAllocs(q.nodeId(), q.secretId(), q.allocs()).thenApply(IndexResponse::new)),
                new Endpoint<>(GET_CLIENT_ALLOCS, ClientAllocsRequest.class, ClientAllocsResponse.class, Routing.LOCAL,
                        q -> local.clientAllocs(q.nodeId(), q.secretId(), q.minIndex(), q.knownIndex(),
                                        Duration.ofMillis(q.maxWaitMillis()))
                                .thenApply(a -> new ClientAllocsResponse(a.allocs(), a.index(), a.total()))),
                new Endpoint<>(GET_ALLOCS, GetAllocsRequest.class, AllocsResponse.class, Routing.LOCAL,
                        q -> local.allocs(q.nodeId(), q.secretId(), q.allocIds()).thenApply(AllocsResponse::new)),
                new Endpoint<>(UPDATE_SERVICES, UpdateServicesRequest.class, IndexResponse.class, Routing.LEADER,
                        q -> local.updateServices(q.nodeId(), q.secretId(), q.upserts() == null ? List.of() : q.upserts(),
                                q.deleteIds() == null ? List.of() : q.deleteIds()).thenApply(IndexResponse::new)),
                new Endpoint<>(TASK_VARIABLES, TaskVariablesRequest.class, NodeEndpoint.TaskVariables.class,
                        Routing.LOCAL, q -> local.taskVariables(q.nodeId(), q.secretId(), q.allocId(), q.task(),
                                q.paths() == null ? List.of() : q.paths(), q.prefixes() == null ? List.of() : q.prefixes(),
                                q.minIndex(), Duration.ofMillis(q.maxWaitMillis()))),
                new Endpoint<>(TASK_SERVICES, TaskServicesRequest.class, NodeEndpoint.TaskServices.class,
                        Routing.LOCAL, q -> local.taskServices(q.nodeId(), q.secretId(), q.allocId(),
                                q.names() == null ? List.of() : q.names(), q.minIndex(),
                                Duration.ofMillis(q.maxWaitMillis()))),
                new Endpoint<>(SIGN_IDENTITIES, SignIdentitiesRequest.class, SignIdentitiesResponse.class,
                        Routing.LEADER, q -> local.signIdentities(q.nodeId(), q.secretId(),
                                q.identities() == null ? List.of() : q.identities())
                                .thenApply(SignIdentitiesResponse::new)));
    }

    private static UpdateResponse withServers(NodeUpdateResponse r, Supplier<List<String>> servers) {
        List<String> known = servers.get();
        UpdateResponse wire = UpdateResponse.of(r);
        return known.isEmpty() ? wire
                : new UpdateResponse(wire.heartbeatTtlMillis(), wire.index(), known, wire.signedIdentity());
    }

    /** A client-only agent's {@link NodeEndpoint}: every call goes to the servers; their replies update the list. */
    static final class Remote implements NodeEndpoint {
        /**
         * How long one server has to answer a client's call: room for a leader election (the forward waits up to
         * 5 s for a leader) and a commit. A server silent for longer is passed over for the next one.
         */
        static final Duration ATTEMPT_TIMEOUT = Duration.ofSeconds(10);

        private final Rpc rpc;

        Remote(Rpc rpc) {
            this.rpc = rpc;
        }

        @Override
        public CompletionStage<NodeUpdateResponse> register(Node node) {
            return register(node, "");
        }

        @Override
        public CompletionStage<NodeUpdateResponse> register(Node node, String introToken) {
            return rpc.call(REGISTER, new RegisterRequest(node, introToken), UpdateResponse.class, ATTEMPT_TIMEOUT)
                    .thenApply(this::learn);
        }

        @Override
        public CompletionStage<NodeUpdateResponse> updateStatus(String nodeId, String secretId, String status) {
            return rpc.call(UPDATE_STATUS, new UpdateStatusRequest(nodeId, secretId, status), UpdateResponse.class,
                    ATTEMPT_TIMEOUT)
                    .thenApply(this::learn);
        }

        /** Nomad's client replaces its server list with the one every register and heartbeat reply carries. */
        private NodeUpdateResponse learn(UpdateResponse wire) {
            NodeUpdateResponse r = wire.toResponse();
            if (!r.servers().isEmpty()) {
                rpc.setServers(r.servers());
            }
            return r;
        }

        @Override
        public CompletionStage<Long> updateAllocs(String nodeId, String secretId, List<Allocation> updates) {
            return rpc.call(UPDATE_ALLOC, new UpdateAllocRequest(nodeId, secretId, updates), IndexResponse.class,
                    ATTEMPT_TIMEOUT)
                    .thenApply(IndexResponse::index);
        }

        @Override
        public CompletionStage<ClientAllocs> clientAllocs(String nodeId, String secretId, long minIndex,
                                                          Duration maxWait) {
            return clientAllocs(nodeId, secretId, minIndex, 0, maxWait);
        }

        @Override
        public CompletionStage<ClientAllocs> clientAllocs(String nodeId, String secretId, long minIndex,
                                                          long knownIndex, Duration maxWait) {
            return rpc.call(GET_CLIENT_ALLOCS,
                            new ClientAllocsRequest(nodeId, secretId, minIndex, maxWait.toMillis(), knownIndex),
                            ClientAllocsResponse.class, maxWait.plus(ATTEMPT_TIMEOUT))
                    .thenApply(ClientAllocsResponse::answer);
        }

        @Override
        public CompletionStage<List<Allocation>> allocs(String nodeId, String secretId, List<String> allocIds) {
            return rpc.call(GET_ALLOCS, new GetAllocsRequest(nodeId, secretId, allocIds), AllocsResponse.class,
                    ATTEMPT_TIMEOUT)
                    .thenApply(AllocsResponse::allocs);
        }

        @Override
        public CompletionStage<Long> updateServices(String nodeId, String secretId, List<ServiceRegistration> upserts,
                                                    List<String> deleteIds) {
            return rpc.call(UPDATE_SERVICES, new UpdateServicesRequest(nodeId, secretId, upserts, deleteIds),
                    IndexResponse.class, ATTEMPT_TIMEOUT)
                    .thenApply(IndexResponse::index);
        }

        @Override
        public CompletionStage<NodeEndpoint.TaskVariables> taskVariables(String nodeId, String secretId, String allocId,
                                                                         String task, List<String> paths,
                                                                         List<String> prefixes, long minIndex,
                                                                         Duration maxWait) {
            return rpc.call(TASK_VARIABLES, new TaskVariablesRequest(nodeId, secretId, allocId, task, paths, prefixes,
                    minIndex, maxWait.toMillis()), NodeEndpoint.TaskVariables.class, maxWait.plus(ATTEMPT_TIMEOUT));
        }

        @Override
        public CompletionStage<NodeEndpoint.TaskServices> taskServices(String nodeId, String secretId, String allocId,
                                                                       List<String> names, long minIndex,
                                                                       Duration maxWait) {
            return rpc.call(TASK_SERVICES, new TaskServicesRequest(nodeId, secretId, allocId, names, minIndex,
                    maxWait.toMillis()), NodeEndpoint.TaskServices.class, maxWait.plus(ATTEMPT_TIMEOUT));
        }

        @Override
        public CompletionStage<List<NodeEndpoint.SignedIdentity>> signIdentities(
                String nodeId, String secretId, List<NodeEndpoint.IdentityRequest> requests) {
            return rpc.call(SIGN_IDENTITIES, new SignIdentitiesRequest(nodeId, secretId, requests),
                    SignIdentitiesResponse.class, ATTEMPT_TIMEOUT)
                    .thenApply(r -> r.signed() == null ? List.of() : r.signed());
        }
    }
}
