package io.caravan.server.internal;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.AclRule;
import io.caravan.api.acl.Capability;
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
import org.osgi.service.component.annotations.Reference;

/**
 * Nomad's client endpoints answered by a server: the call goes to the client node that holds the allocation, through
 * the RPC connection that node opened (servers may not reach clients otherwise). Ranked below the client's own routes,
 * so an agent that is also a client serves its own allocations' calls itself. When the node is connected to another
 * server, the call goes on to the servers (once: a forwarded call is marked). Streams ({@code fs/stream},
 * {@code follow=true}) are not forwarded yet: they need a streaming RPC.
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

    static final String FORWARDED = "X-Caravan-Forwarded";
    /** What {@link Rpc#callNode} says when the node has no connection to this server. */
    private static final String NOT_CONNECTED = "no RPC connection to this server";

    private final ServerState state;
    private final Rpc rpc;
    private final LeaderLocator servers;

    @Activate
    public ClientForwardRoutes(@Reference ServerState state, @Reference Rpc rpc, @Reference LeaderLocator servers) {
        this.state = state;
        this.rpc = rpc;
        this.servers = servers;
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
    }

    /** The allocation's own namespace, for the rule; null for one that does not exist (the handler answers 404). */
    private String allocNamespace(ApiRequest r) {
        return state.store().snapshot().get(NomadTables.ALLOCS, r.pathParam("alloc")).map(Allocation::namespace)
                .orElse(null);
    }

    private CompletableFuture<ApiResponse> forward(ApiRequest request) {
        if (request.path().startsWith("/v1/client/fs/stream/")
                || request.query("follow").map(f -> f.equals("true") || f.equals("1")).orElse(false)) {
            throw CaravanException.notImplemented("Streaming from a client through a server is not supported yet: "
                    + "ask the client agent itself");
        }
        String allocId = request.pathParam("alloc");
        Allocation alloc = state.store().snapshot().get(NomadTables.ALLOCS, allocId)
                .orElseThrow(() -> CaravanException.notFound("Unknown allocation \"" + allocId + "\""));
        HttpForward.Call call = HttpForward.Call.of(request);
        return rpc.callNode(alloc.nodeId(), HttpForward.METHOD, call, HttpForward.Answer.class)
                .exceptionallyCompose(error -> {
                    Throwable t = error instanceof CompletionException && error.getCause() != null
                            ? error.getCause() : error;
                    boolean elsewhere = t instanceof CaravanException c && c.code() == ErrorCode.NOT_FOUND;
                    if (!elsewhere || request.header(FORWARDED).isPresent()) {
                        return CompletableFuture.failedFuture(t);
                    }
                    return viaOtherServers(marked(call), servers.serverRpcAddresses(), 0, t);
                })
                .thenApply(HttpForward.Answer::toResponse).toCompletableFuture();
    }

    private static HttpForward.Call marked(HttpForward.Call call) {
        Map<String, String> headers = new LinkedHashMap<>(call.headers());
        headers.put(FORWARDED, "1");
        return new HttpForward.Call(call.method(), call.uri(), headers, call.body());
    }

    private static boolean notConnectedThere(HttpForward.Answer answer) {
        return answer.status() == 404 && answer.body() != null
                && new String(answer.body(), java.nio.charset.StandardCharsets.UTF_8).contains(NOT_CONNECTED);
    }

    /** The node's connection is at another server: ask each in turn; the first that has it answers. */
    private CompletableFuture<HttpForward.Answer> viaOtherServers(HttpForward.Call call, List<String> others, int i,
                                                                  Throwable last) {
        if (i >= others.size()) {
            return CompletableFuture.failedFuture(last);
        }
        return rpc.callAt(others.get(i), HttpForward.METHOD, call, HttpForward.Answer.class).toCompletableFuture()
                .thenCompose(answer -> notConnectedThere(answer) && i + 1 < others.size()
                        ? viaOtherServers(call, others, i + 1, last) : CompletableFuture.completedFuture(answer))
                .exceptionallyCompose(e -> viaOtherServers(call, others, i + 1, e));
    }
}
