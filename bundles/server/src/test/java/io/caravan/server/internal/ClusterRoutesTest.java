package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.agent.AgentInfo;
import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.json.NomadJson;
import io.caravan.consensus.NotLeaderException;
import io.caravan.consensus.RaftConfiguration;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiRequest;
import io.caravan.http.ApiResponse;
import io.caravan.http.AsyncHandler;
import io.caravan.http.HttpForward;
import io.caravan.http.QueryOptions;
import io.caravan.http.RouteTable;
import io.caravan.membership.Member;
import io.caravan.membership.Membership;
import io.caravan.membership.MembershipException;
import io.caravan.rpc.Endpoint;
import io.caravan.rpc.Rpc;
import org.junit.jupiter.api.Test;

/** The cluster endpoints' Nomad shapes and error mapping, against hand-written membership, Raft and RPC. */
class ClusterRoutesTest {

    // ---- fixtures ----------------------------------------------------------------------------------------------

    record Agent(boolean server, boolean client) implements AgentInfo {
        public String name() { return "s1"; }
        public String region() { return "global"; }
        public String datacenter() { return "dc1"; }
        public String nodeId() { return "id-1"; }
        public boolean devMode() { return false; }
        public String version() { return "1.10.0"; }
        public Path dataDir() { return Path.of("/tmp"); }
        public String advertiseHttp() { return "10.0.0.1:4646"; }
        public String advertiseRpc() { return "10.0.0.1:4647"; }
        public String advertiseSerf() { return "10.0.0.1:4648"; }
    }

    /** A fixed gossip pool: force-leave turns FAILED into LEFT, join answers as told. */
    static final class Pool implements Membership {
        final Map<String, Member> members = new LinkedHashMap<>();
        List<String> joined;
        MembershipException joinFailure;

        Pool(Member... ms) {
            for (Member m : ms) {
                members.put(m.name(), m);
            }
        }

        public Member self() { return members.values().iterator().next(); }
        public List<Member> members() { return List.copyOf(members.values()); }

        public int join(List<String> addresses) throws MembershipException {
            if (joinFailure != null) {
                throw joinFailure;
            }
            joined = addresses;
            return addresses.size();
        }

        public void leave() {}

        public boolean forceLeave(String name) {
            Member m = members.get(name);
            if (m == null || m.status() == Member.Status.ALIVE) {
                return false;
            }
            members.put(name, m.withStatus(Member.Status.LEFT));
            return true;
        }

        public void setTags(Map<String, String> tags) {}
        public void addListener(Consumer<List<Member>> onChange) {}
        public void removeListener(Consumer<List<Member>> onChange) {}
    }

    static final class Group implements RaftConfiguration {
        final List<Server> servers = new ArrayList<>();
        final List<String> removed = new ArrayList<>();
        boolean leader = true;

        public List<Server> servers() { return List.copyOf(servers); }

        public CompletionStage<Void> removePeer(String idOrAddress) {
            if (!leader) {
                return CompletableFuture.failedFuture(NotLeaderException.leaderIs("10.0.0.2:4649"));
            }
            removed.add(idOrAddress);
            servers.removeIf(s -> s.id().equals(idOrAddress) || s.address().equals(idOrAddress));
            return CompletableFuture.completedFuture(null);
        }
    }

    /** Serves dispatch through the component's own endpoints, as this agent's dispatcher does on the leader. */
    static final class LocalRpc implements Rpc {
        final ClusterRoutes routes;
        List<String> servers = new ArrayList<>();
        final List<String> pinged = new ArrayList<>();
        final List<String> unreachable = new ArrayList<>();
        final List<String> calls = new ArrayList<>();

        LocalRpc(ClusterRoutes routes) {
            this.routes = routes;
        }

        @SuppressWarnings({"unchecked", "rawtypes"})
        public <R> CompletionStage<R> dispatch(String method, Object request, Class<R> response) {
            for (Endpoint e : routes.endpoints()) {
                if (e.name().equals(method)) {
                    assertTrue(e.request().isInstance(request));
                    try {
                        return (CompletionStage<R>) e.handler().handle(request);
                    } catch (RuntimeException ex) {
                        return CompletableFuture.failedFuture(ex);
                    }
                }
            }
            return CompletableFuture.failedFuture(new CaravanException(ErrorCode.NOT_FOUND, "rpc: can't find " + method));
        }

        @SuppressWarnings("unchecked")
        public <R> CompletionStage<R> call(String method, Object request, Class<R> response) {
            calls.add(method + " " + ((HttpForward.Call) request).uri());
            return CompletableFuture.completedFuture((R) new HttpForward.Answer(200, Map.of(), "{}".getBytes()));
        }

        public <R> CompletionStage<R> callAt(String address, String method, Object request, Class<R> response) {
            pinged.add(address);
            if (unreachable.contains(address)) {
                return CompletableFuture.failedFuture(new CaravanException(ErrorCode.NO_LEADER, "connection refused"));
            }
            return dispatch(method, request, response);
        }

        public CompletionStage<io.caravan.rpc.RpcStream> openNodeStream(String nodeId, String method,
                                                                        Object request) {
            throw new UnsupportedOperationException(method);
        }

        public CompletionStage<io.caravan.rpc.RpcStream> openStreamAt(String address, String method,
                                                                      Object request) {
            throw new UnsupportedOperationException(method);
        }

        public <R> CompletionStage<R> callNode(String nodeId, String method, Object request, Class<R> response) {
            throw new UnsupportedOperationException();
        }

        public List<EndpointStats> stats() { return List.of(); }
        public List<String> servers() { return List.copyOf(servers); }
        public void setServers(List<String> addresses) { servers = new ArrayList<>(addresses); }
    }

    record Request(String method, String path, Map<String, List<String>> params) implements ApiRequest {
        public String pathParam(String name) { return null; }
        public Optional<String> query(String name) {
            return Optional.ofNullable(params.get(name)).map(v -> v.get(0));
        }
        public List<String> queryAll(String name) { return params.getOrDefault(name, List.of()); }
        public Optional<String> header(String name) { return Optional.empty(); }
        public Optional<String> token() { return Optional.empty(); }
        public QueryOptions options() { return null; }
        public <T> T body(Class<T> type) { throw new UnsupportedOperationException(); }
        public String remoteAddress() { return "127.0.0.1"; }
    }

    static final class Table implements RouteTable {
        final Map<String, AsyncHandler> routes = new HashMap<>();
        final Map<String, String> endpoints = new HashMap<>();

        public RouteTable routeAsync(String method, String pattern, ApiEndpoint endpoint, AsyncHandler handler) {
            routes.put(method + " " + pattern, handler);
            endpoints.put(method + " " + pattern, endpoint.name() + " " + endpoint.rule().describe());
            return this;
        }
    }

    static Member member(String name, String address, Member.Status status, String id) {
        return new Member(name, address, status, Map.of("role", "nomad", "region", "global", "dc", "dc1", "id", id,
                "raft_vsn", "3", "port", "4647"), 1);
    }

    final Pool pool = new Pool(member("s1.global", "10.0.0.1:4648", Member.Status.ALIVE, "id-1"),
            member("s2.global", "10.0.0.2:4648", Member.Status.FAILED, "id-2"),
            member("s3.global", "[fd00::3]:4648", Member.Status.LEFT, "id-3"));
    final Group group = new Group();

    ClusterRoutes routes(boolean server, boolean client) {
        ClusterRoutes r = new ClusterRoutes(new Agent(server, client));
        if (server) {
            r.membership = pool;
            r.raft = group;
        }
        r.rpc = new LocalRpc(r);
        return r;
    }

    /** The answer, or the CaravanException the route failed with (thrown or as a failed stage). */
    static Object call(ClusterRoutes component, String method, String path, String... query) {
        Table table = new Table();
        component.register(table);
        AsyncHandler h = table.routes.get(method + " " + path);
        assertTrue(h != null, "no route " + method + " " + path);
        Map<String, List<String>> params = new LinkedHashMap<>();
        for (String q : query) {
            int eq = q.indexOf('=');
            params.computeIfAbsent(q.substring(0, eq), k -> new ArrayList<>()).add(q.substring(eq + 1));
        }
        try {
            return h.handle(new Request(method, path, params)).toCompletableFuture().join();
        } catch (CompletionException e) {
            return e.getCause();
        } catch (Exception e) {
            return e;
        }
    }

    static ApiResponse ok(Object answer) {
        if (answer instanceof Throwable t) {
            fail("expected an answer", t);
        }
        ApiResponse r = (ApiResponse) answer;
        assertEquals(200, r.status());
        return r;
    }

    static JsonNode json(Object answer) {
        return NomadJson.mapper().valueToTree(ok(answer).body());
    }

    static void assertError(Object answer, int status, String message) {
        if (!(answer instanceof CaravanException e)) {
            fail("expected a CaravanException, got " + answer);
            return;
        }
        assertEquals(status, e.code().httpStatus(), e.getMessage());
        assertEquals(message, e.getMessage());
    }

    @Test
    void eachRouteDeclaresNomadsEndpointAndRule() {
        Table table = new Table();
        routes(true, true).register(table);
        assertEquals(Map.of("GET /v1/agent/members", "Agent.Members node:read",
                "PUT /v1/agent/join", "Agent.Join agent:write", "POST /v1/agent/join", "Agent.Join agent:write",
                "PUT /v1/agent/force-leave", "Agent.ForceLeave agent:write",
                "POST /v1/agent/force-leave", "Agent.ForceLeave agent:write",
                "GET /v1/operator/raft/configuration", "Operator.RaftGetConfiguration management",
                "DELETE /v1/operator/raft/peer", "Operator.RaftRemovePeer management",
                "GET /v1/agent/servers", "Agent.ListServers agent:read",
                "PUT /v1/agent/servers", "Agent.UpdateServers agent:write",
                "POST /v1/agent/servers", "Agent.UpdateServers agent:write"), table.endpoints);
    }

    // ---- members -----------------------------------------------------------------------------------------------

    @Test
    void membersHaveNomadsShape() throws Exception {
        JsonNode body = json(call(routes(true, false), "GET", "/v1/agent/members"));

        assertEquals(List.of("ServerName", "ServerRegion", "ServerDC", "Members"), names(body));
        assertEquals("s1.global", body.get("ServerName").asText());
        assertEquals("global", body.get("ServerRegion").asText());
        assertEquals("dc1", body.get("ServerDC").asText());
        JsonNode first = body.get("Members").get(0);
        assertEquals(List.of("Name", "Addr", "Port", "Tags", "Status", "ProtocolMin", "ProtocolMax", "ProtocolCur",
                "DelegateMin", "DelegateMax", "DelegateCur"), names(first));
        assertEquals("10.0.0.1", first.get("Addr").asText());
        assertEquals(4648, first.get("Port").asInt());
        assertEquals("id-1", first.get("Tags").get("id").asText());
        assertEquals(List.of("alive", "failed", "left"),
                body.get("Members").findValues("Status").stream().map(JsonNode::asText).toList());
        assertEquals("fd00::3", body.get("Members").get(2).get("Addr").asText(), "IPv6 without brackets");
    }

    @Test
    void aClientAgentAsksAServerForMembersAndTheRaftConfiguration() {
        ClusterRoutes client = routes(false, true);
        LocalRpc rpc = (LocalRpc) client.rpc;

        ok(call(client, "GET", "/v1/agent/members"));
        ok(call(client, "GET", "/v1/operator/raft/configuration"));

        assertEquals(List.of(HttpForward.METHOD + " /v1/agent/members",
                HttpForward.METHOD + " /v1/operator/raft/configuration"), rpc.calls);
    }

    // ---- join ----------------------------------------------------------------------------------------------------

    @Test
    void joinAnswersNomadsLowerCaseKeys() {
        JsonNode body = json(call(routes(true, false), "PUT", "/v1/agent/join", "address=10.0.0.2", "address=10.0.0.3"));

        assertEquals("{\"num_joined\":2,\"error\":\"\"}", body.toString());
        assertEquals(List.of("10.0.0.2", "10.0.0.3"), pool.joined);
        ok(call(routes(true, false), "POST", "/v1/agent/join", "address=10.0.0.2"));
    }

    @Test
    void aFailedJoinIsA200WithTheError() {
        pool.joinFailure = new MembershipException("10.0.0.9:4648: connection refused");

        JsonNode body = json(call(routes(true, false), "PUT", "/v1/agent/join", "address=10.0.0.9"));

        assertEquals(0, body.get("num_joined").asInt());
        assertEquals("10.0.0.9:4648: connection refused", body.get("error").asText());
    }

    @Test
    void joinNeedsAnAddressAndAServer() {
        assertError(call(routes(true, false), "PUT", "/v1/agent/join"), 400, "missing address to join");
        assertError(call(routes(false, true), "PUT", "/v1/agent/join", "address=x"), 501, "Invalid method");
    }

    // ---- force-leave ---------------------------------------------------------------------------------------------

    @Test
    void forceLeaveMarksAFailedMemberLeftByNameOrShortName() {
        ApiResponse r = ok(call(routes(true, false), "PUT", "/v1/agent/force-leave", "node=s2"));

        assertNull(r.body(), "an empty body");
        assertEquals(Member.Status.LEFT, pool.members.get("s2.global").status());
        ok(call(routes(true, false), "POST", "/v1/agent/force-leave", "node=s3.global"));
    }

    @Test
    void forceLeaveAcceptsGoBooleansForPrune() {
        for (String prune : List.of("1", "true", "True", "t", "0", "false")) {
            pool.members.put("s2.global", pool.members.get("s2.global").withStatus(Member.Status.FAILED));
            ok(call(routes(true, false), "PUT", "/v1/agent/force-leave", "node=s2.global", "prune=" + prune));
        }
        assertError(call(routes(true, false), "PUT", "/v1/agent/force-leave", "node=s2.global", "prune=yes"), 400,
                "invalid prune value");
    }

    @Test
    void forceLeaveErrors() {
        ClusterRoutes server = routes(true, false);
        assertError(call(server, "PUT", "/v1/agent/force-leave"), 400, "missing node to force leave");
        assertError(call(server, "PUT", "/v1/agent/force-leave", "node="), 400, "missing node to force leave");
        assertError(call(server, "PUT", "/v1/agent/force-leave", "node=ghost"), 400,
                "No node found with name 'ghost'");
        assertError(call(server, "PUT", "/v1/agent/force-leave", "node=s1.global"), 400,
                "node 's1.global' is alive: only a failed server can be forced to leave");
        assertError(call(routes(false, true), "PUT", "/v1/agent/force-leave", "node=s2"), 501, "Invalid method");
    }

    // ---- raft configuration --------------------------------------------------------------------------------------

    @Test
    void raftConfigurationHasNomadsShape() {
        group.servers.add(new RaftConfiguration.Server("id-1", "10.0.0.1:4649", "10.0.0.1:4647", true, true));
        group.servers.add(new RaftConfiguration.Server("id-2", "10.0.0.2:4649", "10.0.0.2:4647", false, true));
        group.servers.add(new RaftConfiguration.Server("id-9", "10.0.0.9:4649", false, false));

        JsonNode body = json(call(routes(true, false), "GET", "/v1/operator/raft/configuration"));

        assertEquals(List.of("Servers", "Index"), names(body));
        JsonNode leader = body.get("Servers").get(0);
        assertEquals(List.of("ID", "Node", "Address", "Leader", "Voter", "RaftProtocol"), names(leader));
        assertEquals("{\"ID\":\"id-1\",\"Node\":\"s1.global\",\"Address\":\"10.0.0.1:4647\",\"Leader\":true,"
                + "\"Voter\":true,\"RaftProtocol\":\"3\"}", leader.toString(), "the RPC address, as /v1/status/*");
        assertEquals("s2.global", body.get("Servers").get(1).get("Node").asText());
        assertEquals("10.0.0.2:4647", body.get("Servers").get(1).get("Address").asText());
        JsonNode stranger = body.get("Servers").get(2);
        assertEquals("(unknown)", stranger.get("Node").asText(), "Nomad's name for a peer no member vouches for");
        assertEquals("(unknown)", stranger.get("Address").asText(), "never the Raft address");
        assertEquals("unknown", stranger.get("RaftProtocol").asText());
        assertFalse(stranger.get("Voter").asBoolean());
        assertEquals(0, body.get("Index").asLong());
    }

    @Test
    void raftConfigurationWithoutRaftIsNoLeader() {
        ClusterRoutes server = routes(true, false);
        server.raft = null;
        assertError(call(server, "GET", "/v1/operator/raft/configuration"), 500, "No cluster leader");
    }

    // ---- remove peer ---------------------------------------------------------------------------------------------

    @Test
    void removePeerByIdOrAddressGoesThroughTheLeaderEndpoints() {
        group.servers.add(new RaftConfiguration.Server("id-1", "10.0.0.1:4649", "10.0.0.1:4647", true, true));
        group.servers.add(new RaftConfiguration.Server("id-2", "10.0.0.2:4649", "10.0.0.2:4647", false, true));
        group.servers.add(new RaftConfiguration.Server("id-3", "10.0.0.3:4649", "10.0.0.3:4647", false, true));
        group.servers.add(new RaftConfiguration.Server("id-4", "10.0.0.4:4649", "10.0.0.4:4647", false, true));
        ClusterRoutes server = routes(true, false);

        assertNull(ok(call(server, "DELETE", "/v1/operator/raft/peer", "id=id-2")).body());
        assertNull(ok(call(server, "DELETE", "/v1/operator/raft/peer", "address=10.0.0.3:4647")).body());
        assertNull(ok(call(server, "DELETE", "/v1/operator/raft/peer", "address=10.0.0.4:4649")).body());

        assertEquals(List.of("id-2", "id-3", "id-4"), group.removed, "by the address the API shows, or the Raft one");
        List<Endpoint<?, ?>> endpoints = server.endpoints();
        Map<String, Endpoint.Routing> routing = new HashMap<>();
        endpoints.forEach(e -> routing.put(e.name(), e.routing()));
        assertEquals(Endpoint.Routing.LEADER, routing.get("Operator.RaftRemovePeerByID"));
        assertEquals(Endpoint.Routing.LEADER, routing.get("Operator.RaftRemovePeerByAddress"));
        assertEquals(Endpoint.Routing.LOCAL, routing.get("Status.Ping"));
    }

    @Test
    void removePeerErrors() {
        group.servers.add(new RaftConfiguration.Server("id-1", "10.0.0.1:4649", true, true));
        ClusterRoutes server = routes(true, false);

        assertError(call(server, "DELETE", "/v1/operator/raft/peer"), 400,
                "Must specify either ?id with the server's ID or ?address with IP:port of peer to remove");
        assertError(call(server, "DELETE", "/v1/operator/raft/peer", "id=id-1", "address=10.0.0.1:4649"), 400,
                "Must specify only one of ?id or ?address");
        assertError(call(server, "DELETE", "/v1/operator/raft/peer", "id=nope"), 400,
                "id \"nope\" was not found in the Raft configuration");
        assertError(call(server, "DELETE", "/v1/operator/raft/peer", "address=10.0.0.1:4649x"), 400,
                "address \"10.0.0.1:4649x\" was not found in the Raft configuration");
        assertError(call(server, "DELETE", "/v1/operator/raft/peer", "id=10.0.0.1:4649"), 400,
                "id \"10.0.0.1:4649\" was not found in the Raft configuration");

        group.leader = false;
        assertError(call(server, "DELETE", "/v1/operator/raft/peer", "id=id-1"), 500, "No cluster leader");
        server.raft = null;
        assertError(call(server, "DELETE", "/v1/operator/raft/peer", "id=id-1"), 500, "No cluster leader");
        assertTrue(group.removed.isEmpty());
    }

    @Test
    void aClientAgentForwardsRemovePeerToAServer() {
        ClusterRoutes client = routes(false, true);
        ok(call(client, "DELETE", "/v1/operator/raft/peer", "id=id-1"));
        assertEquals(List.of(HttpForward.METHOD + " /v1/operator/raft/peer"), ((LocalRpc) client.rpc).calls);
    }

    // ---- agent servers -------------------------------------------------------------------------------------------

    @Test
    void serversListsTheClientsServersSorted() {
        ClusterRoutes client = routes(false, true);
        ((LocalRpc) client.rpc).servers = new ArrayList<>(List.of("10.0.0.2:4647", "10.0.0.1:4647"));

        JsonNode body = json(call(client, "GET", "/v1/agent/servers"));

        assertEquals("[\"10.0.0.1:4647\",\"10.0.0.2:4647\"]", body.toString());
        assertError(call(routes(true, false), "GET", "/v1/agent/servers"), 501, "Invalid method");
    }

    @Test
    void setServersKeepsThoseThatAnswerAPing() {
        ClusterRoutes client = routes(false, true);
        LocalRpc rpc = (LocalRpc) client.rpc;
        rpc.unreachable.add("10.0.0.9:4647");

        assertNull(ok(call(client, "PUT", "/v1/agent/servers", "address=10.0.0.1", "address=10.0.0.9",
                "address=10.0.0.2:5000")).body());

        assertEquals(List.of("10.0.0.1:4647", "10.0.0.9:4647", "10.0.0.2:5000"), rpc.pinged);
        assertEquals(List.of("10.0.0.1:4647", "10.0.0.2:5000"), rpc.servers());
    }

    @Test
    void setServersErrors() {
        ClusterRoutes client = routes(false, true);
        LocalRpc rpc = (LocalRpc) client.rpc;
        rpc.servers = new ArrayList<>(List.of("10.0.0.1:4647"));
        rpc.unreachable.add("10.0.0.9:4647");

        assertError(call(client, "PUT", "/v1/agent/servers"), 400, "missing server address");
        assertError(call(client, "POST", "/v1/agent/servers", "address=10.0.0.9"), 400,
                "Server at address 10.0.0.9:4647 failed ping: connection refused");
        assertError(call(client, "PUT", "/v1/agent/servers", "address=10.0.0.1:99999"), 400,
                "Failed to parse server address 10.0.0.1:99999: invalid port 99999");
        assertEquals(List.of("10.0.0.1:4647"), rpc.servers(), "unchanged after a refusal");
        assertError(call(routes(true, false), "PUT", "/v1/agent/servers", "address=10.0.0.1"), 501,
                "Invalid method");
    }

    @Test
    void rpcAddressesTakeNomadsDefaultPort() {
        assertEquals("10.0.0.1:4647", ClusterRoutes.withRpcPort("10.0.0.1"));
        assertEquals("server.example:4000", ClusterRoutes.withRpcPort("server.example:4000"));
        assertEquals("[fd00::1]:4647", ClusterRoutes.withRpcPort("fd00::1"));
        assertEquals("[fd00::1]:4700", ClusterRoutes.withRpcPort("[fd00::1]:4700"));
    }

    @Test
    void aPingFailureSaysWhyEvenWithoutAMessage() {
        assertEquals("ConnectException", ClusterRoutes.reason(new CompletionException(new CaravanException(
                ErrorCode.INTERNAL, null, "null", new java.net.ConnectException()))));
        assertEquals("connection refused", ClusterRoutes.reason(new CompletionException(
                new CaravanException(ErrorCode.NO_LEADER, "connection refused"))));
    }

    private static List<String> names(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
