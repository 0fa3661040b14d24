package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import io.caravan.agent.AgentConfigService;
import io.caravan.agent.ReloadReport;
import io.caravan.agent.UnsupportedKey;
import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.Acl;
import io.caravan.api.acl.Identity;
import io.caravan.api.json.NomadJson;
import io.caravan.api.model.Node;
import io.caravan.http.ApiRequest;
import io.caravan.http.ApiResponse;
import io.caravan.http.HttpForward;
import io.caravan.http.QueryOptions;
import io.caravan.membership.Member;
import io.caravan.rpc.Endpoint;
import io.caravan.rpc.LeaderLocator;
import io.caravan.rpc.Rpc;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Where a reload addressed to another agent goes: the node's connection, another server holding it, a server's RPC
 * address, this agent itself, or nowhere (404); and that the target reloads only when it is the agent named.
 */
class AgentReloadsTest {
    static final ReloadReport REPORT = new ReloadReport(List.of("log_level"), List.of("log_level"), List.of(), 2.5,
            List.of(new UnsupportedKey("tls.http", "a.hcl:2:3", "plain text")));
    static final Identity CALLER = new Identity(Identity.Kind.TOKEN, "accessor-1", "ops", Acl.MANAGEMENT);

    /** Counts reloads. */
    static final class Config implements AgentConfigService {
        int reloads;

        public ReloadReport reload() {
            reloads++;
            return REPORT;
        }

        public Map<String, Object> configuration() { return Map.of(); }
        public List<UnsupportedKey> unsupported() { return List.of(); }
    }

    /** Records every call; nodes in {@code connected} answer the reload RPC, other servers answer as told. */
    static final class Calls implements Rpc {
        final List<String> sent = new ArrayList<>();
        final List<Object> requests = new ArrayList<>();
        final List<String> connected = new ArrayList<>();
        final Map<String, Supplier<HttpForward.Answer>> servers = new HashMap<>();

        @SuppressWarnings("unchecked")
        private <R> CompletionStage<R> answer(String what, Object request, Supplier<?> result) {
            sent.add(what);
            requests.add(request);
            try {
                return CompletableFuture.completedFuture((R) result.get());
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
        }

        public <R> CompletionStage<R> dispatch(String method, Object request, Class<R> response) {
            throw new UnsupportedOperationException();
        }

        public <R> CompletionStage<R> call(String method, Object request, Class<R> response) {
            return answer("servers " + method + " " + ((HttpForward.Call) request).uri(), request,
                    () -> new HttpForward.Answer(200, Map.of("Content-Type", "application/json"), "{}".getBytes()));
        }

        public <R> CompletionStage<R> callAt(String address, String method, Object request, Class<R> response) {
            if (method.equals(HttpForward.METHOD)) {
                return answer(address + " " + method, request, servers.getOrDefault(address, () -> {
                    throw new CaravanException(ErrorCode.NO_LEADER, "connection refused");
                }));
            }
            return answer(address + " " + method, request, () -> REPORT);
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
            return answer("node " + nodeId + " " + method, request, () -> {
                if (!connected.contains(nodeId)) {
                    throw new CaravanException(ErrorCode.NOT_FOUND,
                            "Unknown node " + nodeId + ": no RPC connection to this server");
                }
                return REPORT;
            });
        }

        public List<EndpointStats> stats() { return List.of(); }
        public List<String> servers() { return List.of("10.0.0.1:4647"); }
        public void setServers(List<String> addresses) {}
    }

    record Request(String rawQuery, Map<String, String> headers) implements ApiRequest {
        public String method() { return "PUT"; }
        public String path() { return "/v1/agent/reload"; }
        public String pathParam(String name) { return null; }
        public Optional<String> query(String name) { return Optional.empty(); }
        public List<String> queryAll(String name) { return List.of(); }
        public Optional<String> header(String name) { return Optional.ofNullable(headers.get(name)); }
        public Optional<String> token() { return header("X-Nomad-Token"); }
        public Identity identity() { return CALLER; }
        public QueryOptions options() { return null; }
        public <T> T body(Class<T> type) { throw new UnsupportedOperationException(); }
        public String remoteAddress() { return "127.0.0.1"; }
    }

    static Request request(String query) {
        return new Request(query, Map.of("X-Nomad-Token", "secret-1"));
    }

    static Request relayed(String query) {
        return new Request(query, Map.of("X-Nomad-Token", "secret-1", NodeCalls.FORWARDED, "1"));
    }

    static Member server(String name, String ip, Member.Status status, String id) {
        return new Member(name, ip + ":4648", status, Map.of("id", id, "rpc_addr", ip, "port", "4647"), 1);
    }

    final ServerState state = new ServerState();
    final Config config = new Config();
    final Calls rpc = new Calls();
    String leader = "10.0.0.2:4647";

    @AfterEach
    void stop() {
        state.deactivate();
    }

    /** A server ({@code s1}, node ID {@code id-1}) that knows node {@code n-1} and servers s1, s2, s3 (s3 failed). */
    AgentReloads onServer() throws Exception {
        Node node = NomadJson.mapper().readValue("""
                {"ID": "n-1", "SecretID": "s", "Name": "client1", "Datacenter": "dc1", "Status": "ready"}
                """, Node.class);
        state.apply(1, 0, CommandCodec.encode(new Command.NodeRegister(node, List.of())));
        AgentReloads reloads = new AgentReloads(new ClusterRoutesTest.Agent(true, false), config);
        reloads.state = state;
        reloads.rpc = rpc;
        reloads.membership = new ClusterRoutesTest.Pool(server("s1.global", "10.0.0.1", Member.Status.ALIVE, "id-1"),
                server("s2.global", "10.0.0.2", Member.Status.ALIVE, "id-2"),
                server("s3.global", "10.0.0.3", Member.Status.FAILED, "id-3"));
        reloads.servers = new LeaderLocator() {
            public boolean isLeader() { return false; }
            public Optional<String> leaderRpcAddress() { return Optional.ofNullable(leader); }
            public List<String> serverRpcAddresses() { return List.of("10.0.0.2:4647", "10.0.0.3:4647"); }
        };
        return reloads;
    }

    /** The answer, or what it failed with. */
    static Object outcome(Supplier<CompletionStage<ApiResponse>> call) {
        try {
            return call.get().toCompletableFuture().join();
        } catch (CaravanException e) {
            return e;
        } catch (CompletionException e) {
            return e.getCause();
        }
    }

    @Test
    void aKnownNodeIsReloadedThroughItsConnectionAsAlreadyAuthorized() throws Exception {
        AgentReloads reloads = onServer();
        rpc.connected.add("n-1");
        ApiResponse r = (ApiResponse) outcome(() -> reloads.node("n-1", request("node_id=n-1")));
        assertEquals(200, r.status());
        assertSame(REPORT, r.body());
        assertEquals(List.of("node n-1 Agent.Reload"), rpc.sent);
        assertEquals(new AgentReloads.ReloadRequest("n-1", "token:accessor-1"), rpc.requests.get(0),
                "the target and the caller's label travel, never the secret");
        assertEquals(0, config.reloads, "this server is not reloaded");
    }

    @Test
    void anUnknownNodeIsA404AndNothingIsSent() throws Exception {
        AgentReloads reloads = onServer();
        CaravanException e = (CaravanException) outcome(() -> reloads.node("no-such", request("node_id=no-such")));
        assertEquals(ErrorCode.NOT_FOUND, e.code());
        assertEquals("Unknown node \"no-such\"", e.getMessage());
        assertEquals(List.of(), rpc.sent);
        assertEquals(0, config.reloads);
    }

    @Test
    void aNodeConnectedToAnotherServerIsReachedThroughThatServerOnce() throws Exception {
        AgentReloads reloads = onServer();
        rpc.servers.put("10.0.0.2:4647", () -> new HttpForward.Answer(404, Map.of(),
                "Unknown node n-1: no RPC connection to this server".getBytes(StandardCharsets.UTF_8)));
        rpc.servers.put("10.0.0.3:4647", () -> new HttpForward.Answer(200,
                Map.of("Content-Type", "application/json"), "{\"Changed\":[]}".getBytes(StandardCharsets.UTF_8)));
        ApiResponse r = (ApiResponse) outcome(() -> reloads.node("n-1", request("node_id=n-1")));
        assertEquals(200, r.status());
        assertEquals(List.of("node n-1 Agent.Reload", "10.0.0.2:4647 Agent.HTTP", "10.0.0.3:4647 Agent.HTTP"),
                rpc.sent);
        HttpForward.Call relay = (HttpForward.Call) rpc.requests.get(2);
        assertEquals("/v1/agent/reload?node_id=n-1", relay.uri());
        assertEquals("secret-1", relay.headers().get("X-Nomad-Token"), "the next server authorizes the caller again");
        assertEquals("1", relay.headers().get(NodeCalls.FORWARDED), "and does not relay it further");
    }

    @Test
    void aRelayedCallIsNotRelayedAgain() throws Exception {
        AgentReloads reloads = onServer();
        CaravanException e = (CaravanException) outcome(() -> reloads.node("n-1", relayed("node_id=n-1")));
        assertEquals(ErrorCode.NOT_FOUND, e.code());
        assertEquals(List.of("node n-1 Agent.Reload"), rpc.sent);
    }

    @Test
    void aServerIsNamedByMemberNameNameNodeIdOrLeader() throws Exception {
        AgentReloads reloads = onServer();
        for (String name : List.of("s2.global", "s2", "id-2", "leader")) {
            ApiResponse r = (ApiResponse) outcome(() -> reloads.server(name, request("server_id=" + name)));
            assertEquals(200, r.status(), name);
        }
        assertEquals(List.of("10.0.0.2:4647 Agent.Reload", "10.0.0.2:4647 Agent.Reload", "10.0.0.2:4647 Agent.Reload",
                "10.0.0.2:4647 Agent.Reload"), rpc.sent);
        assertEquals(new AgentReloads.ReloadRequest("id-2", "token:accessor-1"), rpc.requests.get(0));
        assertEquals(0, config.reloads);
    }

    @Test
    void thisServerNamedAsLeaderIsReloadedHere() throws Exception {
        AgentReloads reloads = onServer();
        leader = "10.0.0.1:4647";
        ApiResponse r = (ApiResponse) outcome(() -> reloads.server("leader", request("server_id=leader")));
        assertSame(REPORT, r.body());
        assertEquals(1, config.reloads);
        assertEquals(List.of(), rpc.sent);
    }

    @Test
    void anUnknownOrUnreachableServerIsAnErrorAndNothingIsSent() throws Exception {
        AgentReloads reloads = onServer();
        CaravanException unknown = (CaravanException) outcome(() -> reloads.server("s9", request("server_id=s9")));
        assertEquals(ErrorCode.NOT_FOUND, unknown.code());
        assertEquals("Unknown server \"s9\"", unknown.getMessage());
        CaravanException failed = (CaravanException) outcome(() -> reloads.server("s3", request("server_id=s3")));
        assertEquals(500, failed.code().httpStatus());
        assertEquals("Server \"s3.global\" is failed: it cannot be reloaded", failed.getMessage());
        leader = null;
        CaravanException noLeader = (CaravanException) outcome(() -> reloads.server("leader",
                request("server_id=leader")));
        assertEquals(ErrorCode.NO_LEADER, noLeader.code());
        assertEquals(List.of(), rpc.sent);
        assertEquals(0, config.reloads);
    }

    @Test
    void aClientOnlyAgentHandsTheCallToAServer() {
        AgentReloads reloads = new AgentReloads(new ClusterRoutesTest.Agent(false, true), config);
        reloads.rpc = rpc;
        assertEquals(200, ((ApiResponse) outcome(() -> reloads.node("n-2", request("node_id=n-2")))).status());
        assertEquals(200, ((ApiResponse) outcome(() -> reloads.server("s1", request("server_id=s1")))).status());
        assertEquals(List.of("servers Agent.HTTP /v1/agent/reload?node_id=n-2",
                "servers Agent.HTTP /v1/agent/reload?server_id=s1"), rpc.sent);
        assertEquals("secret-1", ((HttpForward.Call) rpc.requests.get(0)).headers().get("X-Nomad-Token"),
                "the server authorizes the caller's own token");
        assertEquals(0, config.reloads);
    }

    @Test
    void theTargetReloadsOnlyWhenItIsTheAgentNamedAndOnlyServersMayAsk() {
        AgentReloads target = new AgentReloads(new ClusterRoutesTest.Agent(false, true), config);
        Endpoint<?, ?> endpoint = target.endpoints().get(0);
        assertEquals("Agent.Reload", endpoint.name());
        assertEquals(Endpoint.Callers.SERVERS, endpoint.callers());
        CompletionException wrong = assertThrows(CompletionException.class,
                () -> target.serve(new AgentReloads.ReloadRequest("id-2", "anonymous")).toCompletableFuture().join());
        assertEquals(ErrorCode.NOT_FOUND, assertInstanceOf(CaravanException.class, wrong.getCause()).code());
        assertEquals(0, config.reloads);
        assertSame(REPORT, target.serve(new AgentReloads.ReloadRequest("id-1", "token:a")).toCompletableFuture()
                .join());
        assertEquals(1, config.reloads);
    }

    @Test
    void theRequestAndTheReportSurviveTheRpcEncoding() throws Exception {
        var mapper = NomadJson.internalMapper();
        assertEquals(REPORT, mapper.readValue(mapper.writeValueAsBytes(REPORT), ReloadReport.class));
        AgentReloads.ReloadRequest request = new AgentReloads.ReloadRequest("n-1", "token:a");
        assertEquals(request, mapper.readValue(mapper.writeValueAsBytes(request), AgentReloads.ReloadRequest.class));
    }
}
