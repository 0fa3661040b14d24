package io.caravan.server.internal;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.Access;
import io.caravan.api.acl.AclRule;
import io.caravan.api.acl.Capability;
import io.caravan.api.acl.Identity;
import io.caravan.api.acl.Scope;
import io.caravan.api.model.Allocation;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiRequest;
import io.caravan.http.ApiResponse;
import io.caravan.http.ApiRoutes;
import io.caravan.http.HttpForward;
import io.caravan.http.RouteTable;
import io.caravan.rpc.LeaderLocator;
import io.caravan.rpc.Rpc;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

/**
 * Nomad's client endpoints answered by a server: the call goes to the client node that holds the allocation, through
 * the RPC connection that node opened (servers may not reach clients otherwise). Ranked below the client's own routes,
 * so an agent that is also a client serves its own allocations' calls itself. When the node is connected to another
 * server, the call goes on to the servers ({@link NodeCalls}). Calls that stream ({@code fs/stream},
 * {@code follow=true} logs, {@code alloc exec}'s WebSocket) go the same way as RPC streams ({@link ClientStreams}).
 */
@Component(service = ApiRoutes.class, property = "service.ranking:Integer=-10")
public final class ClientForwardRoutes implements ApiRoutes {
    // ---- the endpoints: Nomad's names and the ACL rule each checks, in the allocation's namespace ---------------
    // (the client checks them again when the call reaches it)
    private static final AclRule READ_FS = AclRule.namespace(Capability.READ_FS);
    private static final AclRule ALLOC_LIFECYCLE = AclRule.namespace(Capability.ALLOC_LIFECYCLE);

    /** {@code /v1/client/fs/<op>/:alloc} by op. */
    static final Map<String, ApiEndpoint> FS = Map.of(
            "ls", ApiEndpoint.of("ClientFS.List", READ_FS),
            "stat", ApiEndpoint.of("ClientFS.Stat", READ_FS),
            "cat", ApiEndpoint.of("ClientFS.Cat", READ_FS),
            "readat", ApiEndpoint.of("ClientFS.ReadAt", READ_FS),
            "stream", ApiEndpoint.of("ClientFS.Stream", READ_FS),
            "logs", ApiEndpoint.of("ClientFS.Logs", AclRule.anyOf(AclRule.namespace(Capability.READ_LOGS), READ_FS)));
    /** {@code /v1/client/allocation/:alloc/<op>} by op. */
    static final Map<String, ApiEndpoint> ALLOCATION = Map.of(
            "restart", ApiEndpoint.of("ClientAllocations.Restart", ALLOC_LIFECYCLE),
            "signal", ApiEndpoint.of("ClientAllocations.Signal", ALLOC_LIFECYCLE),
            "stats", ApiEndpoint.of("ClientAllocations.Stats", AclRule.namespace(Capability.READ_JOB)),
            "gc", ApiEndpoint.of("ClientAllocations.GarbageCollect", AclRule.namespace(Capability.SUBMIT_JOB)));

    /** {@code alloc exec}: a WebSocket, bridged to the node's over an RPC stream. */
    static final ApiEndpoint EXEC = ApiEndpoint.of("ClientAllocations.Exec",
            AclRule.namespace(Capability.ALLOC_EXEC));

    /** The host's stats ({@code ?node_id=}), from the node itself. */
    static final ApiEndpoint HOST_STATS = ApiEndpoint.of("ClientStats.Stats", AclRule.scope(Scope.NODE, Access.READ));

    private final ServerState state;
    private final Rpc rpc;
    private final LeaderLocator servers;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "caravan-client-streams");
        t.setDaemon(true);
        return t;
    });
    private final ClientStreams streams;

    @Activate
    public ClientForwardRoutes(@Reference ServerState state, @Reference Rpc rpc, @Reference LeaderLocator servers) {
        this.state = state;
        this.rpc = rpc;
        this.servers = servers;
        this.streams = new ClientStreams(rpc, timer);
    }

    @Deactivate
    void deactivate() {
        timer.shutdownNow();
    }

    @Override
    public void register(RouteTable routes) {
        FS.forEach((op, endpoint) -> routes.getAsync("/v1/client/fs/" + op + "/{alloc}",
                endpoint.namespacedBy(this::allocNamespace), this::forward));
        ALLOCATION.forEach((op, endpoint) -> {
            ApiEndpoint inAllocNamespace = endpoint.namespacedBy(this::allocNamespace);
            routes.getAsync("/v1/client/allocation/{alloc}/" + op, inAllocNamespace, this::forward)
                    .writeAsync("/v1/client/allocation/{alloc}/" + op, inAllocNamespace, this::forward);
        });
        // ws_handshake: the first frame's token is checked here before the node is asked (execWithHandshake).
        routes.get("/v1/client/allocation/{alloc}/exec",
                EXEC.namespacedBy(this::allocNamespace).withTokenInHandshake(), this::exec);
        routes.getAsync("/v1/client/stats", HOST_STATS, this::hostStats);
    }

    /** {@code /v1/client/stats?node_id=}: answered by that node, through the connection it opened. */
    private CompletableFuture<ApiResponse> hostStats(ApiRequest request) {
        String nodeId = request.query("node_id").filter(id -> !id.isEmpty())
                .orElseThrow(() -> CaravanException.badRequest("missing node_id: a server has no host stats of its "
                        + "own to report; name the client node"));
        if (state.store().snapshot().get(NomadTables.NODES, nodeId).isEmpty()) {
            throw CaravanException.notFound("Unknown node \"" + nodeId + "\"");
        }
        return NodeCalls.orViaOtherServers(rpc.callNode(nodeId, HttpForward.METHOD, HttpForward.Call.of(request),
                HttpForward.Answer.class).thenApply(HttpForward.Answer::toResponse), request, rpc,
                servers.serverRpcAddresses());
    }

    /**
     * The caller's WebSocket bridged to the one the node's own exec route opens. Waits (bounded) for the node to
     * answer before upgrading, so a bad request (unknown task, no command) is the node's plain HTTP error.
     */
    private ApiResponse exec(ApiRequest request) throws Exception {
        if (request.authenticationDeferred()) {
            return execWithHandshake(request);
        }
        Allocation alloc = alloc(request);
        if (!request.header("Upgrade").map(u -> u.equalsIgnoreCase("websocket")).orElse(false)) {
            throw CaravanException.badRequest("expected a WebSocket upgrade request");
        }
        try {
            return streams.socket(alloc.nodeId(), request, servers.serverRpcAddresses())
                    .get(ClientStreams.HEAD_WAIT.toSeconds() + 5, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof CaravanException c ? c : e;
        }
    }

    /**
     * A ws_handshake exec without a token: upgraded at once, and nothing is relayed until the first frame's token
     * may {@code alloc-exec} in the allocation's namespace; the node then checks that token again (as a header's:
     * {@code alloc-node-exec} too, which only it can) before its command starts.
     */
    private ApiResponse execWithHandshake(ApiRequest request) {
        return streams.socketAfterHandshake(request, servers.serverRpcAddresses(), token -> {
            Identity caller = request.authenticate(token);
            // As the dispatcher checks: in the allocation's namespace, the query's for one unknown (then a 404).
            String namespace = allocNamespace(request);
            if (!EXEC.rule().allows(caller, namespace != null ? namespace : request.options().namespace())) {
                throw new CaravanException(ErrorCode.PERMISSION_DENIED, "Permission denied");
            }
            return alloc(request).nodeId();
        });
    }

    private Allocation alloc(ApiRequest request) {
        String allocId = request.pathParam("alloc");
        return state.store().snapshot().get(NomadTables.ALLOCS, allocId)
                .orElseThrow(() -> CaravanException.notFound("Unknown allocation \"" + allocId + "\""));
    }

    /** The allocation's own namespace, for the rule; null for one that does not exist (the handler answers 404). */
    private String allocNamespace(ApiRequest r) {
        return state.store().snapshot().get(NomadTables.ALLOCS, r.pathParam("alloc")).map(Allocation::namespace)
                .orElse(null);
    }

    private CompletableFuture<ApiResponse> forward(ApiRequest request) {
        Allocation alloc = alloc(request);
        if (request.path().startsWith("/v1/client/fs/stream/")
                || request.query("follow").map(f -> f.equals("true") || f.equals("1")).orElse(false)) {
            return streams.body(alloc.nodeId(), request, servers.serverRpcAddresses());
        }
        return NodeCalls.orViaOtherServers(rpc.callNode(alloc.nodeId(), HttpForward.METHOD,
                HttpForward.Call.of(request), HttpForward.Answer.class).thenApply(HttpForward.Answer::toResponse),
                request, rpc, servers.serverRpcAddresses());
    }
}
