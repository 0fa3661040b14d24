package io.caravan.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ArrayList;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.agent.AgentConfigService;
import io.caravan.agent.ReloadReport;
import io.caravan.agent.RemoteReload;
import io.caravan.agent.UnsupportedKey;
import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.Access;
import io.caravan.api.acl.Acl;
import io.caravan.api.acl.Identity;
import io.caravan.api.acl.Scope;
import io.caravan.api.json.NomadJson;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiRequest;
import io.caravan.http.ApiResponse;
import io.caravan.http.AsyncHandler;
import io.caravan.http.QueryOptions;
import io.caravan.http.RouteTable;
import org.junit.jupiter.api.Test;

/**
 * {@code PUT /v1/agent/reload} reloads this agent or hands the call to {@link RemoteReload}, and what it reports;
 * {@code /v1/agent/self} lists it too.
 */
class AgentRoutesTest {
    static final UnsupportedKey TLS = new UnsupportedKey("tls.http", "a.hcl:2:3", "plain text");

    /** Counts reloads; reports one unsupported key. */
    static final class Service implements AgentConfigService {
        int reloads;

        public ReloadReport reload() {
            reloads++;
            return new ReloadReport(List.of("log_level"), List.of("log_level"), List.of(), 1.5, List.of(TLS));
        }

        public Map<String, Object> configuration() {
            return Map.of("log_level", "INFO");
        }

        public List<UnsupportedKey> unsupported() {
            return List.of(TLS);
        }
    }

    /** The agent's PID with defaults, as DS would hand it, and a few values set. */
    static AgentPidConfig pid(Map<String, Object> values) {
        return (AgentPidConfig) Proxy.newProxyInstance(AgentPidConfig.class.getClassLoader(),
                new Class<?>[] {AgentPidConfig.class}, (proxy, method, args) -> {
                    Object v = values.get(method.getName());
                    return v != null ? v : method.getDefaultValue();
                });
    }

    record Request(String method, String path, Map<String, String> params) implements ApiRequest {
        public String pathParam(String name) { return null; }
        public Optional<String> query(String name) { return Optional.ofNullable(params.get(name)); }
        public List<String> queryAll(String name) {
            return params.containsKey(name) ? List.of(params.get(name)) : List.of();
        }
        public Optional<String> header(String name) { return Optional.empty(); }
        public Optional<String> token() { return Optional.empty(); }
        public QueryOptions options() { return null; }
        public <T> T body(Class<T> type) { throw new UnsupportedOperationException(); }
        public String remoteAddress() { return "127.0.0.1"; }
    }

    final Service service = new Service();
    final AgentRoutes routes = new AgentRoutes(pid(Map.of("name", "node1", "node_id", "id-1", "region", "global",
            "server_enabled", true, "client_enabled", true, "advertise_rpc", "127.0.0.1:4647",
            "advertise_serf", "127.0.0.1:4648")), service);

    /** The answer, or the CaravanException the route failed with. */
    Object call(String method, String path, String... query) {
        Map<String, AsyncHandler> table = new HashMap<>();
        routes.register(new RouteTable() {
            public RouteTable routeAsync(String m, String pattern, ApiEndpoint endpoint, AsyncHandler handler) {
                table.put(m + " " + pattern, handler);
                return this;
            }
        });
        Map<String, String> params = new LinkedHashMap<>();
        for (String q : query) {
            params.put(q.substring(0, q.indexOf('=')), q.substring(q.indexOf('=') + 1));
        }
        try {
            return table.get(method + " " + path).handle(new Request(method, path, params)).toCompletableFuture()
                    .join();
        } catch (CaravanException e) {
            return e;
        } catch (CompletionException e) {
            return e.getCause();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void eachRouteDeclaresNomadsEndpointAndRule() {
        Map<String, ApiEndpoint> declared = new HashMap<>();
        routes.register(new RouteTable() {
            public RouteTable routeAsync(String m, String pattern, ApiEndpoint endpoint, AsyncHandler handler) {
                declared.put(m + " " + pattern, endpoint);
                return this;
            }
        });
        Map<String, String> expected = Map.of("GET /v1/agent/self", "Agent.Self agent:read",
                "GET /v1/agent/health", "Agent.Health public",
                "PUT /v1/agent/reload", "Agent.Reload agent:write", "POST /v1/agent/reload", "Agent.Reload agent:write",
                "GET /v1/status/leader", "Status.Leader public", "GET /v1/status/peers", "Status.Peers public",
                "GET /v1/regions", "Status.Regions public", "GET /v1/agent/host", "Agent.Host agent:read",
                "GET /v1/agent/schedulers", "Agent.Schedulers agent:read");
        Map<String, String> actual = new HashMap<>();
        declared.forEach((route, e) -> actual.put(route, e.name() + " " + e.rule().describe()));
        assertEquals(expected, actual);
        Identity reader = new Identity(Identity.Kind.TOKEN, "a", "reader", new Acl() {
            public boolean isManagement() { return false; }
            public boolean allowNamespace(String namespace, String capability) { return false; }
            public boolean allowAnyNamespace(String capability) { return false; }
            public boolean allow(Scope scope, Access access) { return scope == Scope.AGENT && access == Access.READ; }
            public boolean allowHostVolume(String name, String capability) { return false; }
            public boolean allowVariable(String namespace, String path, String capability) { return false; }
        });
        assertTrue(AgentRoutes.SELF.rule().allows(reader, "default"));
        assertFalse(AgentRoutes.RELOAD.rule().allows(reader, "default"), "a reload takes agent:write");
        assertTrue(AgentRoutes.HEALTH.rule().allows(Identity.anonymous(Acl.NONE), "default"));
    }

    @Test
    void aReloadAnswersItsReportWithTheUnsupportedKeys() {
        ApiResponse r = (ApiResponse) call("PUT", "/v1/agent/reload");
        assertEquals(200, r.status());
        assertEquals(1, service.reloads);
        JsonNode body = NomadJson.mapper().valueToTree(r.body());
        assertEquals("tls.http", body.path("Unsupported").path(0).path("Key").asText(), body.toString());
        assertEquals("a.hcl:2:3", body.path("Unsupported").path(0).path("Position").asText());
    }

    @Test
    void aReloadForAnUnknownNodeIsA404AndReloadsNothing() {
        CaravanException e = (CaravanException) call("PUT", "/v1/agent/reload", "node_id=no-such-node");
        assertEquals(ErrorCode.NOT_FOUND, e.code());
        assertEquals("Unknown node \"no-such-node\"", e.getMessage());
        CaravanException s = (CaravanException) call("POST", "/v1/agent/reload", "server_id=other.global");
        assertEquals(ErrorCode.NOT_FOUND, s.code());
        CaravanException both = (CaravanException) call("PUT", "/v1/agent/reload", "node_id=id-1", "server_id=node1");
        assertEquals(ErrorCode.BAD_REQUEST, both.code());
        assertEquals(0, service.reloads);
    }

    @Test
    void aReloadAddressedToThisAgentReloadsIt() {
        assertEquals(200, ((ApiResponse) call("PUT", "/v1/agent/reload", "node_id=id-1")).status());
        assertEquals(200, ((ApiResponse) call("PUT", "/v1/agent/reload", "server_id=node1.global")).status());
        assertEquals(2, service.reloads);
    }

    /** Records where a reload was sent; answers 200 with the target named in the body. */
    static final class Remote implements RemoteReload {
        final List<String> sent = new ArrayList<>();

        public CompletionStage<ApiResponse> node(String nodeId, ApiRequest request) {
            sent.add("node " + nodeId);
            return CompletableFuture.completedFuture(ApiResponse.ok(Map.of("Node", nodeId)));
        }

        public CompletionStage<ApiResponse> server(String server, ApiRequest request) {
            sent.add("server " + server);
            return CompletableFuture.completedFuture(ApiResponse.ok(Map.of("Server", server)));
        }
    }

    @Test
    void aReloadForAnotherAgentGoesToRemoteReloadAndDoesNotReloadThisOne() {
        Remote remote = new Remote();
        routes.remote = remote;
        ApiResponse node = (ApiResponse) call("PUT", "/v1/agent/reload", "node_id=id-2");
        assertEquals(Map.of("Node", "id-2"), node.body());
        ApiResponse server = (ApiResponse) call("POST", "/v1/agent/reload", "server_id=leader");
        assertEquals(Map.of("Server", "leader"), server.body());
        call("PUT", "/v1/agent/reload", "server_id=node2.global");
        assertEquals(List.of("node id-2", "server leader", "server node2.global"), remote.sent);
        assertEquals(0, service.reloads);
        CaravanException both = (CaravanException) call("PUT", "/v1/agent/reload", "node_id=id-2", "server_id=x");
        assertEquals(ErrorCode.BAD_REQUEST, both.code());
        assertEquals(3, remote.sent.size(), "an ambiguous target goes nowhere");
    }

    @Test
    void aReloadNamingThisAgentReloadsItHereEvenWithRemoteReload() {
        Remote remote = new Remote();
        routes.remote = remote;
        for (String target : List.of("node_id=id-1", "server_id=node1", "server_id=node1.global", "server_id=id-1")) {
            assertEquals(200, ((ApiResponse) call("PUT", "/v1/agent/reload", target)).status(), target);
        }
        assertEquals(4, service.reloads);
        assertEquals(List.of(), remote.sent);
    }

    @Test
    void onlyAnEnabledRoleNamesThisAgent() {
        AgentPidConfig serverOnly = pid(Map.of("name", "node1", "node_id", "id-1", "region", "global",
                "server_enabled", true, "client_enabled", false));
        assertFalse(AgentRoutes.isThisNode(serverOnly, "id-1"), "a server-only agent is no client node");
        assertTrue(AgentRoutes.isThisServer(serverOnly, "node1.global"));
        AgentPidConfig clientOnly = pid(Map.of("name", "node1", "node_id", "id-1", "region", "global",
                "server_enabled", false, "client_enabled", true));
        assertTrue(AgentRoutes.isThisNode(clientOnly, "id-1"));
        assertFalse(AgentRoutes.isThisServer(clientOnly, "node1"), "a client-only agent is no server");
        assertFalse(AgentRoutes.isThisServer(clientOnly, "id-1"));
    }

    @Test
    void selfListsTheUnsupportedKeysUnderConfig() {
        ApiResponse r = (ApiResponse) call("GET", "/v1/agent/self");
        JsonNode config = NomadJson.mapper().valueToTree(r.body()).path("config");
        assertEquals("tls.http", config.path("Unsupported").path(0).path("Key").asText(), config.toString());
        assertEquals("plain text", config.path("Unsupported").path(0).path("Reason").asText());
    }

    @Test
    void unsupportedIsAnEmptyListWhenNothingIsSet() {
        Map<String, Object> self = AgentViews.selfConfig(Map.of(), List.of(), pid(Map.of()));
        assertTrue(self.get("Unsupported") instanceof List<?> l && l.isEmpty(), String.valueOf(self));
    }

    @Test
    void hostDataIsNomadsShapeWithSecretsRedacted() {
        ApiResponse r = (ApiResponse) call("GET", "/v1/agent/host");
        JsonNode body = NomadJson.mapper().valueToTree(r.body());
        assertEquals("node1", body.path("AgentID").asText());
        JsonNode host = body.path("HostData");
        assertTrue(host.path("OS").asText().startsWith(System.getProperty("os.name")), host.toString());
        assertTrue(host.path("Disk").path("/").path("DiskMB").asLong() > 0, host.toString());
        assertTrue(host.path("Network").isArray());
        assertTrue(host.path("Environment").isObject());
        assertTrue(host.has("ResolvConf") && host.has("Hosts"));
        Map<String, String> env = HostData.redact(Map.of("NOMAD_TOKEN", "s1", "my_secret_key", "s2",
                "AWS_ACCESS_KEY_ID", "s3", "HOME", "/root"));
        assertEquals(Map.of("NOMAD_TOKEN", "<redacted>", "my_secret_key", "<redacted>", "AWS_ACCESS_KEY_ID",
                "<redacted>", "HOME", "/root"), env);
        CaravanException other = (CaravanException) call("GET", "/v1/agent/host", "node_id=id-2");
        assertEquals(ErrorCode.NOT_IMPLEMENTED, other.code());
        assertEquals(200, ((ApiResponse) call("GET", "/v1/agent/host", "server_id=node1.global")).status());
    }

    @Test
    void schedulersAreAServerOnlyEndpoint() {
        CaravanException e = (CaravanException) call("GET", "/v1/agent/schedulers");
        assertEquals(ErrorCode.NOT_IMPLEMENTED, e.code());
        assertEquals("Server only endpoint", e.getMessage());
    }
}
