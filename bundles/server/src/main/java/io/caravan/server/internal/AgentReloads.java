package io.caravan.server.internal;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.caravan.agent.AgentConfigService;
import io.caravan.agent.AgentInfo;
import io.caravan.agent.ReloadReport;
import io.caravan.agent.RemoteReload;
import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.http.ApiRequest;
import io.caravan.http.ApiResponse;
import io.caravan.http.HttpForward;
import io.caravan.membership.Member;
import io.caravan.membership.Membership;
import io.caravan.rpc.Endpoint;
import io.caravan.rpc.EndpointProvider;
import io.caravan.rpc.LeaderLocator;
import io.caravan.rpc.Rpc;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code PUT /v1/agent/reload?node_id=…|server_id=…} for another agent. A client-only agent hands the API call to a
 * server. A server finds the target (a node in its state, a server among the gossip members) and sends it the
 * {@value #METHOD} RPC: to a node through the connection the node opened (or, when that is at another server, the API
 * call through that server), to a server at its RPC address.
 *
 * <p>The caller is authorized where the call entered ({@code agent:write}, checked by a server against the replicated
 * ACL tables) and the RPC carries it as already authorized, with the caller's label (never a secret) for the
 * target's log. Only servers may call {@value #METHOD}: a client-only agent holds no ACL tables to check a token
 * against, and a server that may place any workload on a node gains nothing by also being trusted to reload it.
 */
@Component(service = {RemoteReload.class, EndpointProvider.class})
public final class AgentReloads implements RemoteReload, EndpointProvider {
    static final String METHOD = "Agent.Reload";
    private static final Logger LOG = LoggerFactory.getLogger(AgentReloads.class);

    /** A reload for the agent with this node ID, asked for by {@code requestedBy} (an identity's label). */
    record ReloadRequest(String nodeId, String requestedBy) {}

    private final AgentInfo agent;
    private final AgentConfigService config;
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    volatile ServerState state;
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    volatile Membership membership;
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    volatile LeaderLocator servers;
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    volatile Rpc rpc;

    @Activate
    public AgentReloads(@Reference AgentInfo agent, @Reference AgentConfigService config) {
        this.agent = agent;
        this.config = config;
    }

    @Override
    public List<Endpoint<?, ?>> endpoints() {
        return List.of(new Endpoint<>(METHOD, ReloadRequest.class, ReloadReport.class, Endpoint.Routing.LOCAL,
                Endpoint.Callers.SERVERS, this::serve));
    }

    /** The target's side: only a reload addressed to this agent runs (a stale connection must not reload another). */
    CompletionStage<ReloadReport> serve(ReloadRequest request) {
        if (!agent.nodeId().equals(request.nodeId())) {
            return CompletableFuture.failedFuture(
                    CaravanException.notFound("Unknown node \"" + request.nodeId() + "\""));
        }
        LOG.atInfo().addKeyValue("requested_by", request.requestedBy()).log("reload requested through a server");
        try {
            return CompletableFuture.completedFuture(config.reload());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletionStage<ApiResponse> node(String nodeId, ApiRequest request) {
        if (!agent.server()) {
            return viaServers(request);
        }
        ServerState s = running(state);
        Rpc r = running(rpc);
        if (s.store().snapshot().get(NomadTables.NODES, nodeId).isEmpty()) {
            throw CaravanException.notFound("Unknown node \"" + nodeId + "\"");
        }
        LeaderLocator l = servers;
        return NodeCalls.orViaOtherServers(r.callNode(nodeId, METHOD, new ReloadRequest(nodeId,
                request.identity().label()), ReloadReport.class).thenApply(ApiResponse::ok), request, r,
                l == null ? List.of() : l.serverRpcAddresses());
    }

    @Override
    public CompletionStage<ApiResponse> server(String server, ApiRequest request) {
        if (!agent.server()) {
            return viaServers(request);
        }
        Membership m = running(membership);
        Member target = find(m.members(), server, agent.region(), Optional.ofNullable(servers)
                .flatMap(LeaderLocator::leaderRpcAddress).orElse(null))
                .orElseThrow(() -> server.equals("leader") ? new CaravanException(ErrorCode.NO_LEADER,
                        "No cluster leader") : CaravanException.notFound("Unknown server \"" + server + "\""));
        if (target.name().equals(m.self().name())) {
            return CompletableFuture.completedFuture(ApiResponse.ok(config.reload()));
        }
        if (target.status() != Member.Status.ALIVE) {
            throw new CaravanException(ErrorCode.INTERNAL, "Server \"" + target.name() + "\" is "
                    + target.status().wireName() + ": it cannot be reloaded");
        }
        String address = target.rpcAddress().orElseThrow(() -> new CaravanException(ErrorCode.INTERNAL,
                "Server \"" + target.name() + "\" has no RPC address"));
        return running(rpc).callAt(address, METHOD, new ReloadRequest(target.tag("id"), request.identity().label()),
                ReloadReport.class).thenApply(ApiResponse::ok);
    }

    /**
     * The member {@code server} names: its member name, its name in {@code region}, its node ID ({@code id} tag), or
     * {@code leader} (the member at {@code leaderRpc}).
     */
    static Optional<Member> find(List<Member> members, String server, String region, String leaderRpc) {
        if (server.equals("leader")) {
            return leaderRpc == null ? Optional.empty()
                    : members.stream().filter(m -> m.rpcAddress().filter(leaderRpc::equals).isPresent()).findFirst();
        }
        return members.stream().filter(m -> m.name().equals(server)).findFirst()
                .or(() -> members.stream().filter(m -> m.name().equals(server + "." + region)).findFirst())
                .or(() -> members.stream().filter(m -> server.equals(m.tag("id"))).findFirst());
    }

    /** A client-only agent knows neither nodes nor servers: a server answers the call, authorizing it itself. */
    private CompletionStage<ApiResponse> viaServers(ApiRequest request) {
        return running(rpc).call(HttpForward.METHOD, HttpForward.Call.of(request), HttpForward.Answer.class)
                .thenApply(HttpForward.Answer::toResponse);
    }

    /** A part that starts after the HTTP API (state, gossip, RPC): until it runs, nothing can be reached. */
    private static <T> T running(T part) {
        if (part == null) {
            throw new CaravanException(ErrorCode.NO_LEADER, "No servers reachable: the agent is still starting");
        }
        return part;
    }
}
