package io.caravan.server.internal;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.caravan.agent.AgentInfo;
import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.consensus.NotLeaderException;
import io.caravan.consensus.RaftConfiguration;
import io.caravan.consensus.Replicator;
import io.caravan.http.ApiRequest;
import io.caravan.http.ApiResponse;
import io.caravan.http.ApiRoutes;
import io.caravan.http.HttpForward;
import io.caravan.http.RouteTable;
import io.caravan.membership.Member;
import io.caravan.membership.Membership;
import io.caravan.membership.MembershipException;
import io.caravan.rpc.Endpoint;
import io.caravan.rpc.EndpointProvider;
import io.caravan.rpc.LeaderLocator;
import io.caravan.rpc.Rpc;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * Nomad's cluster endpoints: server members, join and force-leave (membership), the Raft configuration and
 * remove-peer (the leader, through the {@value #REMOVE_PEER} RPC endpoint, so any server can take the request), and
 * a client's server list. Active on every agent; each route answers 501 where its part of the agent is missing, as
 * Nomad does for server-only and client-only endpoints.
 */
@Component(service = {ApiRoutes.class, EndpointProvider.class})
public final class ClusterRoutes implements ApiRoutes, EndpointProvider {
    static final String REMOVE_PEER = "Operator.RaftRemovePeer";

    /** A serf member as Nomad's {@code /v1/agent/members} shows it. */
    record MemberView(String name, String addr, int port, Map<String, String> tags, String status, int protocolMin,
                      int protocolMax, int protocolCur, int delegateMin, int delegateMax, int delegateCur) {
        static MemberView of(Member m) {
            int colon = m.address().lastIndexOf(':');
            String host = m.address().substring(0, colon).replace("[", "").replace("]", "");
            return new MemberView(m.name(), host, Integer.parseInt(m.address().substring(colon + 1)),
                    new TreeMap<>(m.tags()), m.status().wireName(), 1, 5, 2, 2, 5, 4);
        }
    }

    record MembersView(String serverName, String serverRegion, String serverDC, List<MemberView> members) {}

    /** Nomad's join answer keeps Go's lower-case keys. */
    record JoinView(@JsonProperty("num_joined") int numJoined, @JsonProperty("error") String error) {}

    record RaftServerView(@JsonProperty("ID") String id, String node, String address, boolean leader, boolean voter,
                          String raftProtocol) {}

    record RaftConfigurationView(List<RaftServerView> servers, long index) {}

    /** Remove-peer as it travels to the leader: by id or by address. */
    record RemovePeerRequest(String idOrAddress) {}

    record RemovePeerResponse(boolean removed) {}

    private final AgentInfo agent;
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile Membership membership;
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile RaftConfiguration raft;
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile Replicator log;
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile LeaderLocator servers;
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile Rpc rpc;

    @Activate
    public ClusterRoutes(@Reference AgentInfo agent) {
        this.agent = agent;
    }

    @Override
    public void register(RouteTable routes) {
        routes.getAsync("/v1/agent/members", r -> viaServerIfClient(r, () -> {
            Membership m = membership();
            Member self = m.self();
            return ApiResponse.ok(new MembersView(self.name(), self.tag("region"), self.tag("dc"),
                    m.members().stream().map(MemberView::of).toList()));
        }));
        routes.write("/v1/agent/join", this::join);
        routes.write("/v1/agent/force-leave", this::forceLeave);
        routes.getAsync("/v1/operator/raft/configuration", r -> viaServerIfClient(r, () -> {
            RaftConfiguration group = raftConfiguration();
            Replicator l = log;
            return ApiResponse.ok(new RaftConfigurationView(group.servers().stream()
                    .map(s -> new RaftServerView(s.id(), nodeName(s.id()), s.address(), s.leader(), s.voter(), "3"))
                    .toList(), l == null ? 0 : l.lastAppliedIndex()));
        }));
        routes.routeAsync("DELETE", "/v1/operator/raft/peer", this::removePeer);
        routes.get("/v1/agent/servers", r -> ApiResponse.ok(knownServers()));
        routes.write("/v1/agent/servers", this::setServers);
    }

    /** A client-only agent asks a server, as Nomad's client agents do for cluster reads; a server answers itself. */
    private CompletableFuture<ApiResponse> viaServerIfClient(ApiRequest r, java.util.function.Supplier<ApiResponse> here) {
        Rpc local = rpc;
        if (!agent.server() && local != null && !local.servers().isEmpty()) {
            return local.call(HttpForward.METHOD, HttpForward.Call.of(r), HttpForward.Answer.class)
                    .thenApply(HttpForward.Answer::toResponse).toCompletableFuture();
        }
        return CompletableFuture.completedFuture(here.get());
    }

    private ApiResponse join(ApiRequest r) {
        List<String> addresses = r.queryAll("address");
        if (addresses.isEmpty()) {
            throw CaravanException.badRequest("missing address to join");
        }
        try {
            return ApiResponse.ok(new JoinView(membership().join(addresses), ""));
        } catch (MembershipException e) {
            return ApiResponse.ok(new JoinView(0, e.getMessage()));
        }
    }

    private ApiResponse forceLeave(ApiRequest r) {
        String node = r.query("node").filter(n -> !n.isBlank())
                .orElseThrow(() -> CaravanException.badRequest("missing node to force leave"));
        Membership m = membership();
        String region = m.self().tag("region");
        boolean left = m.forceLeave(node) || (!node.contains(".") && m.forceLeave(node + "." + region));
        if (!left) {
            throw CaravanException.badRequest("node " + node + " is not a failed member of the cluster");
        }
        return ApiResponse.empty();
    }

    private CompletableFuture<ApiResponse> removePeer(ApiRequest r) {
        String target = r.query("id").or(() -> r.query("address")).filter(s -> !s.isBlank())
                .orElseThrow(() -> CaravanException.badRequest("Must specify either ?id with the server's ID or "
                        + "?address with IP:port of peer to remove"));
        Rpc local = rpc;
        if (local == null) {
            throw CaravanException.notImplemented("Server only endpoint: this agent is not a server");
        }
        return local.dispatch(REMOVE_PEER, new RemovePeerRequest(target), RemovePeerResponse.class)
                .thenApply(ok -> ApiResponse.empty()).toCompletableFuture();
    }

    private ApiResponse setServers(ApiRequest r) {
        List<String> addresses = r.queryAll("address");
        if (addresses.isEmpty()) {
            throw CaravanException.badRequest("missing server address");
        }
        if (!agent.client() || agent.server()) {
            throw CaravanException.notImplemented("Client only endpoint: this agent's client talks to its own server");
        }
        rpc().setServers(addresses);
        return ApiResponse.empty();
    }

    /** A client's servers: those it calls; a server's: the region's servers, leader first. */
    private List<String> knownServers() {
        LeaderLocator l = servers;
        if (agent.server() && l != null) {
            return l.serverRpcAddresses();
        }
        if (!agent.client()) {
            throw CaravanException.notImplemented("Client only endpoint: this agent is not a client");
        }
        return rpc().servers();
    }

    /** What the leader serves for remove-peer; a follower forwards it there. */
    @Override
    public List<Endpoint<?, ?>> endpoints() {
        return List.of(new Endpoint<>(REMOVE_PEER, RemovePeerRequest.class, RemovePeerResponse.class,
                Endpoint.Routing.LEADER, Endpoint.Callers.SERVERS, q -> raftConfiguration().removePeer(q.idOrAddress())
                        .handle((ok, error) -> {
                            if (error != null) {
                                throw new CompletionException(asApiError(error));
                            }
                            return new RemovePeerResponse(true);
                        })));
    }

    private static CaravanException asApiError(Throwable error) {
        Throwable t = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        if (t instanceof IllegalArgumentException) {
            return CaravanException.badRequest(t.getMessage());
        }
        if (t instanceof NotLeaderException) {
            return new CaravanException(ErrorCode.NO_LEADER, t.getMessage());
        }
        return new CaravanException(ErrorCode.INTERNAL, null, String.valueOf(t.getMessage()), t);
    }

    private String nodeName(String id) {
        Membership m = membership;
        if (m == null) {
            return id;
        }
        return m.members().stream().filter(x -> id.equals(x.tag("id"))).map(Member::name).findFirst().orElse(id);
    }

    private Membership membership() {
        return Optional.ofNullable(membership).orElseThrow(
                () -> CaravanException.notImplemented("Server only endpoint: this agent is not a server"));
    }

    private RaftConfiguration raftConfiguration() {
        return Optional.ofNullable(raft).orElseThrow(() -> agent.server()
                ? new CaravanException(ErrorCode.NO_LEADER, "No cluster leader")
                : CaravanException.notImplemented("Server only endpoint: this agent is not a server"));
    }

    private Rpc rpc() {
        return Optional.ofNullable(rpc).orElseThrow(
                () -> new CaravanException(ErrorCode.INTERNAL, "the RPC layer is not running"));
    }
}
