package io.caravan.server.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.caravan.agent.AgentInfo;
import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.Access;
import io.caravan.api.acl.AclRule;
import io.caravan.api.acl.Scope;
import io.caravan.consensus.NotLeaderException;
import io.caravan.consensus.RaftConfiguration;
import io.caravan.consensus.Replicator;
import io.caravan.http.ApiEndpoint;
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
 * remove-peer (the leader, through the {@value #REMOVE_PEER_BY_ID} and {@value #REMOVE_PEER_BY_ADDRESS} RPC
 * endpoints, so any server can take the request), and a client's server list. Active on every agent: a client-only
 * agent asks a server for the cluster reads and remove-peer, as Nomad's agents send those RPCs to a server; the
 * server-only writes (join, force-leave) and the client-only server list answer Nomad's 501 "Invalid method" on an
 * agent without that part.
 */
@Component(service = {ApiRoutes.class, EndpointProvider.class})
public final class ClusterRoutes implements ApiRoutes, EndpointProvider {
    // ---- the HTTP endpoints: Nomad's names and the ACL rule each checks -----------------------------------------
    static final ApiEndpoint MEMBERS = ApiEndpoint.of("Agent.Members", AclRule.scope(Scope.NODE, Access.READ));
    /** agent:write; Nomad still lets an anonymous join through with a warning (deprecated), Caravan does not. */
    static final ApiEndpoint JOIN = ApiEndpoint.of("Agent.Join", AclRule.scope(Scope.AGENT, Access.WRITE))
            .agentLocal();   // how servers without a leader find each other
    static final ApiEndpoint FORCE_LEAVE = ApiEndpoint.of("Agent.ForceLeave", AclRule.scope(Scope.AGENT, Access.WRITE))
            .agentLocal();
    static final ApiEndpoint SERVERS = ApiEndpoint.of("Agent.ListServers", AclRule.scope(Scope.AGENT, Access.READ));
    static final ApiEndpoint UPDATE_SERVERS = ApiEndpoint.of("Agent.UpdateServers",
            AclRule.scope(Scope.AGENT, Access.WRITE)).agentLocal();
    static final ApiEndpoint RAFT_CONFIGURATION = ApiEndpoint.of("Operator.RaftGetConfiguration", AclRule.MANAGEMENT);
    /** By {@code ?id} or {@code ?address}: the RPC it becomes is {@value #REMOVE_PEER_BY_ID} or the other. */
    static final ApiEndpoint RAFT_REMOVE_PEER = ApiEndpoint.of("Operator.RaftRemovePeer", AclRule.MANAGEMENT);

    static final String REMOVE_PEER_BY_ID = "Operator.RaftRemovePeerByID";
    static final String REMOVE_PEER_BY_ADDRESS = "Operator.RaftRemovePeerByAddress";
    /** Nomad's liveness call; a client pings each server it is given before using it. */
    static final String PING = "Status.Ping";
    /** Nomad's answer where an agent lacks the server or client part the endpoint needs. */
    static final String INVALID_METHOD = "Invalid method";
    static final int DEFAULT_RPC_PORT = 4647;
    static final long PING_TIMEOUT_MS = 5_000;

    /** A serf member as Nomad's {@code /v1/agent/members} shows it. */
    record MemberView(String name, String addr, int port, Map<String, String> tags, String status, int protocolMin,
                      int protocolMax, int protocolCur, int delegateMin, int delegateMax, int delegateCur) {
        static MemberView of(Member m) {
            int colon = m.address().lastIndexOf(':');
            String host = colon < 0 ? m.address() : m.address().substring(0, colon);
            host = host.replace("[", "").replace("]", "");
            int port = colon < 0 ? 0 : Integer.parseInt(m.address().substring(colon + 1));
            return new MemberView(m.name(), host, port, new TreeMap<>(m.tags()), m.status().wireName(), 1, 5, 2, 2,
                    5, 4);
        }
    }

    record MembersView(String serverName, String serverRegion, String serverDC, List<MemberView> members) {}

    /** Nomad's join answer keeps Go's lower-case keys. */
    record JoinView(@JsonProperty("num_joined") int numJoined, @JsonProperty("error") String error) {}

    record RaftServerView(@JsonProperty("ID") String id, String node, String address, boolean leader, boolean voter,
                          String raftProtocol) {}

    record RaftConfigurationView(List<RaftServerView> servers, long index) {}

    /** Remove-peer as it travels to the leader, by Raft server ID. */
    record RaftPeerByIdRequest(String id) {}

    /** Remove-peer as it travels to the leader, by Raft address. */
    record RaftPeerByAddressRequest(String address) {}

    record RemovePeerResponse(boolean removed) {}

    record PingRequest(long sent) {}

    record PingResponse(boolean ok) {}

    private final AgentInfo agent;
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    volatile Membership membership;
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    volatile RaftConfiguration raft;
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    volatile Replicator log;
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    volatile LeaderLocator servers;
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    volatile Rpc rpc;

    @Activate
    public ClusterRoutes(@Reference AgentInfo agent) {
        this.agent = agent;
    }

    @Override
    public void register(RouteTable routes) {
        routes.getAsync("/v1/agent/members", MEMBERS, r -> viaServerIfClient(r, this::members))
                .write("/v1/agent/join", JOIN, this::join)
                .write("/v1/agent/force-leave", FORCE_LEAVE, this::forceLeave)
                .getAsync("/v1/operator/raft/configuration", RAFT_CONFIGURATION,
                        r -> viaServerIfClient(r, this::raftConfiguration))
                .deleteAsync("/v1/operator/raft/peer", RAFT_REMOVE_PEER, this::removePeer)
                .get("/v1/agent/servers", SERVERS, r -> ApiResponse.ok(knownServers()))
                .writeAsync("/v1/agent/servers", UPDATE_SERVERS, this::setServers);
    }

    /**
     * A client-only agent asks a server, as Nomad's client agents send cluster RPCs to one (failing with no known
     * servers); a server answers itself.
     */
    private CompletableFuture<ApiResponse> viaServerIfClient(ApiRequest r, Supplier<ApiResponse> here) {
        if (!agent.server()) {
            Rpc local = rpc;
            if (local == null) {
                return CompletableFuture.failedFuture(
                        new CaravanException(ErrorCode.NO_LEADER, "No servers reachable: the RPC layer is not running"));
            }
            return local.call(HttpForward.METHOD, HttpForward.Call.of(r), HttpForward.Answer.class)
                    .thenApply(HttpForward.Answer::toResponse).toCompletableFuture();
        }
        try {
            return CompletableFuture.completedFuture(here.get());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private ApiResponse members() {
        Membership m = runningMembership();
        Member self = m.self();
        String region = Optional.ofNullable(self.tag("region")).orElse(agent.region());
        String dc = Optional.ofNullable(self.tag("dc")).orElse(agent.datacenter());
        return ApiResponse.ok(new MembersView(self.name(), region, dc,
                m.members().stream().map(MemberView::of).toList()));
    }

    private ApiResponse join(ApiRequest r) {
        serverOnly();
        List<String> addresses = r.queryAll("address");
        if (addresses.isEmpty()) {
            throw CaravanException.badRequest("missing address to join");
        }
        try {
            return ApiResponse.ok(new JoinView(runningMembership().join(addresses), ""));
        } catch (MembershipException e) {
            return ApiResponse.ok(new JoinView(0, String.valueOf(e.getMessage())));
        }
    }

    private ApiResponse forceLeave(ApiRequest r) {
        serverOnly();
        String node = r.query("node").orElse("");
        if (node.isEmpty()) {
            throw CaravanException.badRequest("missing node to force leave");
        }
        // Nomad parses prune as Go's ParseBool; the gossip pool reaps a member that left, so both forms remove it.
        Optional<Boolean> prune = parseBool(r.query("prune").orElse(""));
        if (prune == null) {
            throw CaravanException.badRequest("invalid prune value");
        }
        Membership m = runningMembership();
        String region = Optional.ofNullable(m.self().tag("region")).orElse(agent.region());
        String name = node;
        boolean left = m.forceLeave(name);
        if (!left && !node.contains(".")) {
            name = node + "." + region;
            left = m.forceLeave(name);
        }
        if (!left) {
            String known = name;
            boolean alive = m.members().stream().anyMatch(x -> (x.name().equals(node) || x.name().equals(known))
                    && x.status() == Member.Status.ALIVE);
            throw CaravanException.badRequest(alive
                    ? "node '" + node + "' is alive: only a failed server can be forced to leave"
                    : "No node found with name '" + node + "'");
        }
        return ApiResponse.empty();
    }

    /**
     * Go's {@code strconv.ParseBool}: empty is absent, {@code 1 t T TRUE true True} and their false forms are
     * values, anything else is invalid ({@code null}).
     */
    static Optional<Boolean> parseBool(String value) {
        return switch (value) {
            case "" -> Optional.empty();
            case "1", "t", "T", "TRUE", "true", "True" -> Optional.of(true);
            case "0", "f", "F", "FALSE", "false", "False" -> Optional.of(false);
            default -> null;
        };
    }

    private ApiResponse raftConfiguration() {
        RaftConfiguration group = runningRaft();
        Membership m = membership;
        List<Member> members = m == null ? List.of() : m.members();
        Replicator l = log;
        return ApiResponse.ok(new RaftConfigurationView(group.servers().stream().map(s -> {
            Optional<Member> member = members.stream().filter(x -> s.id().equals(x.tag("id"))).findFirst();
            // Nomad's answer for a Raft server no gossip member vouches for.
            String node = member.map(Member::name).orElse("(unknown)");
            String protocol = member.map(x -> Optional.ofNullable(x.tag("raft_vsn")).orElse("3")).orElse("unknown");
            // The RPC address, as /v1/status/leader and /v1/status/peers name the same server (Nomad's Raft shares
            // its RPC port, so its SDK users compare them); never the Raft port, which no client can use.
            return new RaftServerView(s.id(), node, s.rpcAddress().isEmpty() ? "(unknown)" : s.rpcAddress(),
                    s.leader(), s.voter(), protocol);
        }).toList(), l == null ? 0 : l.lastAppliedIndex()));
    }

    private CompletableFuture<ApiResponse> removePeer(ApiRequest r) {
        Optional<String> id = r.query("id");
        Optional<String> address = r.query("address");
        if (id.isEmpty() && address.isEmpty()) {
            throw CaravanException.badRequest(
                    "Must specify either ?id with the server's ID or ?address with IP:port of peer to remove");
        }
        if (id.isPresent() && address.isPresent()) {
            throw CaravanException.badRequest("Must specify only one of ?id or ?address");
        }
        Rpc local = rpc;
        if (local == null) {
            throw new CaravanException(ErrorCode.NO_LEADER, "No cluster leader");
        }
        if (!agent.server()) {
            return local.call(HttpForward.METHOD, HttpForward.Call.of(r), HttpForward.Answer.class)
                    .thenApply(HttpForward.Answer::toResponse).toCompletableFuture();
        }
        CompletionStage<RemovePeerResponse> removed = id.isPresent()
                ? local.dispatch(REMOVE_PEER_BY_ID, new RaftPeerByIdRequest(id.get()), RemovePeerResponse.class)
                : local.dispatch(REMOVE_PEER_BY_ADDRESS, new RaftPeerByAddressRequest(address.get()),
                        RemovePeerResponse.class);
        return removed.thenApply(ok -> ApiResponse.empty()).toCompletableFuture();
    }

    private List<String> knownServers() {
        clientOnly();
        Rpc local = rpc;
        List<String> known = new ArrayList<>(local == null ? List.of() : local.servers());
        LeaderLocator l = servers;
        if (known.isEmpty() && agent.server() && l != null) {
            known.addAll(l.serverRpcAddresses());   // a combined agent's client uses its own cluster's servers
        }
        known.sort(null);
        return known;
    }

    /** Nomad pings each server given and keeps those that answer; none answering is a 400. */
    private CompletableFuture<ApiResponse> setServers(ApiRequest r) {
        clientOnly();
        List<String> given = r.queryAll("address");
        if (given.isEmpty()) {
            throw CaravanException.badRequest("missing server address");
        }
        if (agent.server()) {
            throw CaravanException.notImplemented(INVALID_METHOD
                    + ": this agent's client uses the servers of its own cluster");
        }
        Rpc local = rpc();
        List<CompletableFuture<String>> pings = given.stream().map(a -> ping(local, a)).toList();
        return CompletableFuture.allOf(pings.toArray(CompletableFuture[]::new)).thenApply(done -> {
            List<String> answering = new ArrayList<>();
            List<String> problems = new ArrayList<>();
            for (int i = 0; i < given.size(); i++) {
                String result = pings.get(i).join();
                if (result.startsWith("ok:")) {
                    answering.add(result.substring(3));
                } else {
                    problems.add(result);
                }
            }
            if (answering.isEmpty()) {
                throw CaravanException.badRequest(String.join("; ", problems));
            }
            local.setServers(answering);
            return ApiResponse.empty();
        });
    }

    /** {@code ok:host:port} when the server answered, else why it did not. */
    private static CompletableFuture<String> ping(Rpc local, String given) {
        String address;
        try {
            address = withRpcPort(given);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.completedFuture("Failed to parse server address " + given + ": " + e.getMessage());
        }
        try {
            return local.callAt(address, PING, new PingRequest(System.currentTimeMillis()), PingResponse.class)
                    .toCompletableFuture().orTimeout(PING_TIMEOUT_MS, TimeUnit.MILLISECONDS)
                    .handle((ok, error) -> error == null ? "ok:" + address
                            : "Server at address " + address + " failed ping: " + reason(error));
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture("Server at address " + address + " failed ping: " + e.getMessage());
        }
    }

    /** {@code host[:port]}, {@code [v6][:port]} → with Nomad's default RPC port when none is given. */
    static String withRpcPort(String address) {
        String a = address.trim();
        if (a.isEmpty()) {
            throw new IllegalArgumentException("empty address");
        }
        String host;
        String port;
        if (a.startsWith("[")) {
            int close = a.indexOf(']');
            if (close < 0) {
                throw new IllegalArgumentException("missing ']' in address");
            }
            host = a.substring(0, close + 1);
            String rest = a.substring(close + 1);
            if (!rest.isEmpty() && !rest.startsWith(":")) {
                throw new IllegalArgumentException("unexpected text after ']'");
            }
            port = rest.isEmpty() ? "" : rest.substring(1);
        } else {
            int colon = a.lastIndexOf(':');
            if (colon >= 0 && a.indexOf(':') != colon) {
                return withRpcPort("[" + a + "]");   // a bare IPv6 literal
            }
            host = colon < 0 ? a : a.substring(0, colon);
            port = colon < 0 ? "" : a.substring(colon + 1);
        }
        if (host.isEmpty() || host.equals("[]")) {
            throw new IllegalArgumentException("missing host");
        }
        if (port.isEmpty()) {
            return host + ":" + DEFAULT_RPC_PORT;
        }
        int p;
        try {
            p = Integer.parseInt(port);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("invalid port " + port);
        }
        if (p < 1 || p > 65535) {
            throw new IllegalArgumentException("invalid port " + port);
        }
        return host + ":" + p;
    }

    /** What the leader serves for remove-peer (a follower forwards it there), and the ping every agent answers. */
    @Override
    public List<Endpoint<?, ?>> endpoints() {
        return List.of(
                new Endpoint<>(REMOVE_PEER_BY_ID, RaftPeerByIdRequest.class, RemovePeerResponse.class,
                        Endpoint.Routing.LEADER, Endpoint.Callers.SERVERS,
                        q -> remove(s -> s.id().equals(q.id()), "id", q.id())),
                new Endpoint<>(REMOVE_PEER_BY_ADDRESS, RaftPeerByAddressRequest.class, RemovePeerResponse.class,
                        Endpoint.Routing.LEADER, Endpoint.Callers.SERVERS,
                        q -> remove(s -> s.rpcAddress().equals(q.address()) || s.address().equals(q.address()),
                                "address", q.address())),
                new Endpoint<>(PING, PingRequest.class, PingResponse.class, Endpoint.Routing.LOCAL,
                        q -> CompletableFuture.completedFuture(new PingResponse(true))));
    }

    /** Removes the one Raft server that {@code matches}; Nomad refuses a peer not in the configuration. */
    CompletionStage<RemovePeerResponse> remove(java.util.function.Predicate<RaftConfiguration.Server> matches,
                                               String kind, String value) {
        RaftConfiguration group = raft;
        if (group == null) {
            return CompletableFuture.failedFuture(new CaravanException(ErrorCode.NO_LEADER, "No cluster leader"));
        }
        String notFound = kind + " \"" + value + "\" was not found in the Raft configuration";
        Optional<RaftConfiguration.Server> peer = group.servers().stream().filter(matches).findFirst();
        if (peer.isEmpty()) {
            return CompletableFuture.failedFuture(CaravanException.badRequest(notFound));
        }
        CompletionStage<Void> removing;
        try {
            removing = group.removePeer(peer.get().id());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(asApiError(e, notFound));
        }
        return removing.handle((ok, error) -> {
            if (error != null) {
                throw new CompletionException(asApiError(error, notFound));
            }
            return new RemovePeerResponse(true);
        });
    }

    static CaravanException asApiError(Throwable error, String notFound) {
        Throwable t = cause(error);
        if (t instanceof CaravanException c) {
            return c;
        }
        if (t instanceof IllegalArgumentException) {
            return CaravanException.badRequest(notFound);
        }
        if (t instanceof NotLeaderException) {
            return new CaravanException(ErrorCode.NO_LEADER, "No cluster leader");
        }
        return new CaravanException(ErrorCode.INTERNAL, null, String.valueOf(t.getMessage()), t);
    }

    /** The first real message down the cause chain (a refused connection often has none), else the type. */
    static String reason(Throwable error) {
        Throwable last = error;
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String m = t.getMessage();
            if (m != null && !m.isBlank() && !m.equals("null") && !(t instanceof CompletionException)) {
                return m;
            }
            last = t;
        }
        return last.getClass().getSimpleName();
    }

    private static Throwable cause(Throwable error) {
        Throwable t = error;
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    private void serverOnly() {
        if (!agent.server()) {
            throw CaravanException.notImplemented(INVALID_METHOD);
        }
    }

    private void clientOnly() {
        if (!agent.client()) {
            throw CaravanException.notImplemented(INVALID_METHOD);
        }
    }

    /** A server's gossip membership; 501 on an agent that is not a server, 500 until it runs. */
    private Membership runningMembership() {
        serverOnly();
        return Optional.ofNullable(membership).orElseThrow(
                () -> new CaravanException(ErrorCode.INTERNAL, "the server's gossip membership is not running yet"));
    }

    private RaftConfiguration runningRaft() {
        serverOnly();
        return Optional.ofNullable(raft).orElseThrow(() -> new CaravanException(ErrorCode.NO_LEADER,
                "No cluster leader"));
    }

    private Rpc rpc() {
        return Optional.ofNullable(rpc).orElseThrow(
                () -> new CaravanException(ErrorCode.INTERNAL, "the RPC layer is not running"));
    }
}
