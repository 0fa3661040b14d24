package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import com.fasterxml.jackson.databind.JsonNode;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@code /v1/vars} and {@code /v1/var/:path} as the API servlet runs them: every status code they answer. */
class VariableRoutesTest {
    /** May read and list {@code app/*} and write (but not read) {@code drop/*}, in namespace default. */
    static final Acl APP_READER = new Acl() {
        public boolean isManagement() { return false; }
        public boolean allowNamespace(String namespace, String capability) { return false; }
        public boolean allowAnyNamespace(String capability) { return false; }
        public boolean allow(Scope scope, Access access) { return false; }
        public boolean allowHostVolume(String name, String capability) { return false; }
        public boolean allowVariable(String namespace, String path, String capability) {
            if (!"default".equals(namespace)) {
                return false;
            }
            return path.startsWith("app/") && List.of("read", "list").contains(capability)
                    || path.startsWith("drop/") && capability.equals("write");
        }
    };
    static final Identity READER = new Identity(Identity.Kind.TOKEN, "accessor", "reader", APP_READER);

    private final ServerState state = new ServerState();
    private final AtomicLong index = new AtomicLong(10);
    private final Map<String, ApiEndpoint> endpoints = new HashMap<>();
    private final Map<String, AsyncHandler> handlers = new HashMap<>();

    VariableRoutesTest() {
        RaftWrites writes = JobLimitsTest.writes(state, index);
        new VariableRoutes(state.store(), writes, VariablesTest.ready(state, writes), Clock.systemUTC())
                .register(new RouteTable() {
                    public RouteTable routeAsync(String method, String pattern, ApiEndpoint endpoint,
                                                 AsyncHandler handler) {
                        endpoints.put(method + " " + pattern, endpoint);
                        handlers.put(method + " " + pattern, handler);
                        return this;
                    }
                });
    }

    @AfterEach
    void stop() {
        state.deactivate();
    }

    record Call(String method, String varPath, Map<String, String> query, String json, Identity identity)
            implements ApiRequest {
        public String path() { return "/v1/var/" + varPath; }
        public String pathParam(String name) { return name.equals("path") ? varPath : null; }
        public Optional<String> query(String name) { return Optional.ofNullable(query.get(name)); }
        public List<String> queryAll(String name) { return query(name).map(List::of).orElse(List.of()); }
        public Optional<String> header(String name) { return Optional.empty(); }
        public Optional<String> token() { return Optional.empty(); }
        public QueryOptions options() {
            return new QueryOptions("global", query.getOrDefault("namespace", "default"), 0, Duration.ZERO, false,
                    query.getOrDefault("prefix", ""), query.getOrDefault("filter", ""),
                    Integer.parseInt(query.getOrDefault("per_page", "0")), query.getOrDefault("next_token", ""),
                    false);
        }
        public <T> T body(Class<T> type) {
            try {
                return NomadJson.mapper().readValue(json, type);
            } catch (Exception e) {
                throw CaravanException.badRequest(e.getMessage());
            }
        }
        public String remoteAddress() { return "127.0.0.1"; }
    }

    private ApiResponse call(String method, String path, Map<String, String> query, String json, Identity who)
            throws Exception {
        String pattern = path == null ? "/v1/vars" : "/v1/var/{path*}";
        AsyncHandler handler = handlers.get(method + " " + pattern);
        assertNotNull(handler, method + " " + pattern);
        try {
            return handler.handle(new Call(method, path == null ? "" : path, query, json, who)).toCompletableFuture()
                    .get(5, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    private ApiResponse call(String method, String path, Map<String, String> query, String json) throws Exception {
        return call(method, path, query, json, Identity.UNRESTRICTED);
    }

    private CaravanException refused(String method, String path, Map<String, String> query, String json,
                                     Identity who) {
        return assertThrows(CaravanException.class, () -> call(method, path, query, json, who));
    }

    private CaravanException refused(String method, String path, Map<String, String> query, String json) {
        return refused(method, path, query, json, Identity.UNRESTRICTED);
    }

    private static JsonNode json(ApiResponse answer) {
        return NomadJson.mapper().valueToTree(answer.body());
    }

    private static String items(String... kv) {
        StringBuilder b = new StringBuilder("{\"Items\": {");
        for (int i = 0; i < kv.length; i += 2) {
            b.append(i == 0 ? "" : ",").append('"').append(kv[i]).append("\":\"").append(kv[i + 1]).append('"');
        }
        return b.append("}}").toString();
    }

    @Test
    void eachEndpointDeclaresItsVariablesCapability() {
        assertEquals("variables:list", endpoints.get("GET /v1/vars").rule().describe());
        assertEquals("variables:read", endpoints.get("GET /v1/var/{path*}").rule().describe());
        assertEquals("variables:read", endpoints.get("HEAD /v1/var/{path*}").rule().describe());
        assertEquals("variables:write", endpoints.get("PUT /v1/var/{path*}").rule().describe());
        assertEquals("variables:write", endpoints.get("POST /v1/var/{path*}").rule().describe());
        assertEquals("variables:destroy", endpoints.get("DELETE /v1/var/{path*}").rule().describe());
        assertEquals(ApiEndpoint.Routing.LEADER, endpoints.get("PUT /v1/var/{path*}").routing());
    }

    @Test
    void putGetHeadAndDelete() throws Exception {
        ApiResponse put = call("PUT", "app/db", Map.of(), items("user", "admin", "pass", "s3cret"));
        assertEquals(200, put.status());
        JsonNode written = json(put);
        assertEquals("default", written.get("Namespace").asText());
        assertEquals("app/db", written.get("Path").asText());
        assertEquals("admin", written.get("Items").get("user").asText());
        long created = written.get("CreateIndex").asLong();
        assertEquals(created, put.meta().index());
        assertTrue(written.get("CreateTime").asLong() > 0);
        assertFalse(written.has("Lock"), "no lock, no Lock field");

        ApiResponse get = call("GET", "app/db", Map.of(), null);
        assertEquals(200, get.status());
        assertEquals(written, json(get));
        assertEquals(200, call("HEAD", "app/db", Map.of(), null).status());

        ApiResponse deleted = call("DELETE", "app/db", Map.of(), null);
        assertEquals(200, deleted.status());
        assertNull(deleted.body());
        CaravanException gone = refused("GET", "app/db", Map.of(), null);
        assertEquals(ErrorCode.NOT_FOUND, gone.code());
        assertEquals("variable not found", gone.getMessage());
    }

    @Test
    void aCheckAndSetConflictIs409WithTheCurrentVariable() throws Exception {
        long first = json(call("PUT", "cfg", Map.of("cas", "0"), items("v", "1"))).get("ModifyIndex").asLong();
        ApiResponse conflict = call("PUT", "cfg", Map.of("cas", "0"), items("v", "2"));
        assertEquals(409, conflict.status());
        assertEquals("1", json(conflict).get("Items").get("v").asText());
        assertEquals(first, json(conflict).get("ModifyIndex").asLong());
        assertEquals(200, call("PUT", "cfg", Map.of("cas", Long.toString(first)), items("v", "2")).status());
        assertEquals(409, call("PUT", "cfg", Map.of("cas", Long.toString(first)), items("v", "3")).status());

        ApiResponse missing = call("PUT", "nothing", Map.of("cas", "7"), items("v", "1"));
        assertEquals(409, missing.status());
        assertEquals("nothing", json(missing).get("Path").asText());
        assertEquals(0, json(missing).get("ModifyIndex").asLong());

        assertEquals(409, call("DELETE", "cfg", Map.of("cas", Long.toString(first)), null).status());
        assertEquals(200, call("DELETE", "cfg", Map.of("cas", json(call("GET", "cfg", Map.of(), null))
                .get("ModifyIndex").asText()), null).status());
    }

    @Test
    void badInputIsA400NamingTheField() {
        Map<String, String> none = Map.of();
        String ok = items("k", "v");
        assertEquals("Path: must not contain \"..\"", refused("PUT", "a/../b", none, ok).getMessage());
        assertEquals("Path: missing variable path", refused("PUT", "", none, ok).getMessage());
        assertTrue(refused("PUT", "a b", none, ok).getMessage().startsWith("Path: invalid path \"a b\""));
        assertTrue(refused("PUT", "a".repeat(129), none, ok).getMessage().startsWith("Path: invalid path"));
        assertTrue(refused("PUT", "nomad", none, ok).getMessage().contains("reserved"));
        assertTrue(refused("PUT", "nomad/secrets", none, ok).getMessage().contains("only paths at"));
        assertEquals("Items: empty variables are invalid", refused("PUT", "p", none, "{}").getMessage());
        assertEquals("Items: empty variables are invalid", refused("PUT", "p", none, "{\"Items\": {}}")
                .getMessage());
        assertEquals("Items.n: must be a string", refused("PUT", "p", none, "{\"Items\": {\"n\": 1}}").getMessage());
        CaravanException big = refused("PUT", "p", none, items("k", "x".repeat(65536)));
        assertTrue(big.getMessage().startsWith("Items: variables are limited to 64KiB"), big.getMessage());
        assertEquals(ErrorCode.BAD_REQUEST, big.code());
        assertTrue(refused("PUT", "p", Map.of("cas", "soon"), ok).getMessage().startsWith("cas: "));
        assertEquals("cas can't be used with lock operations",
                refused("PUT", "p", Map.of("cas", "1", "lock-acquire", ""), ok).getMessage());
        assertTrue(refused("PUT", "p", Map.of("lock-acquire", "", "lock-release", ""), ok).getMessage()
                .startsWith("multiple lock operations"));
        assertTrue(refused("PUT", "p", none, "{\"Namespace\": \"prod\", \"Items\": {\"k\": \"v\"}}").getMessage()
                .startsWith("Namespace: "));
        assertTrue(refused("PUT", "p", none, "{\"Path\": \"q\", \"Items\": {\"k\": \"v\"}}").getMessage()
                .startsWith("Path: "));
        assertTrue(refused("PUT", "p", Map.of("namespace", "*"), ok).getMessage().startsWith("namespace: "));
        assertEquals("Lock.TTL: TTL must be between 10 seconds and 24 hours",
                refused("PUT", "p", Map.of("lock-acquire", ""), "{\"Lock\": {\"TTL\": \"1s\"}}").getMessage());
        assertTrue(refused("PUT", "p", Map.of("lock-acquire", ""), "{\"Lock\": {\"TTL\": \"later\"}}").getMessage()
                .startsWith("Lock.TTL: "));
        assertTrue(refused("PUT", "p", Map.of("lock-renew", ""), "{}").getMessage().startsWith("Lock.ID: "));
        // Exactly at the limit is still accepted.
        assertDoesNotThrow(() -> call("PUT", "p", none, items("k", "x".repeat(65535))));
    }

    @Test
    void locksAreAcquiredRenewedAndReleasedByTheirHolder() throws Exception {
        ApiResponse acquired = call("PUT", "leader", Map.of("lock-acquire", ""),
                "{\"Items\": {\"who\": \"a\"}, \"Lock\": {\"TTL\": \"30s\", \"LockDelay\": \"5s\"}}");
        assertEquals(200, acquired.status());
        JsonNode lock = json(acquired).get("Lock");
        String id = lock.get("ID").asText();
        assertFalse(id.isEmpty());
        assertEquals("30s", lock.get("TTL").asText());
        assertEquals("5s", lock.get("LockDelay").asText());
        assertEquals("a", json(acquired).get("Items").get("who").asText());

        ApiResponse again = call("PUT", "leader", Map.of("lock-acquire", ""), "{}");
        assertEquals(409, again.status());
        assertEquals("30s", json(again).get("Lock").get("TTL").asText());
        assertFalse(json(again).get("Lock").has("ID"), "the holder's ID is its proof: never shown to others");
        assertFalse(json(call("GET", "leader", Map.of(), null)).get("Lock").has("ID"));
        assertEquals(ErrorCode.BAD_REQUEST, refused("PUT", "leader", Map.of(),
                "{\"Items\": {\"who\": \"a\"}, \"Lock\": {\"ID\": \"" + id + "\", \"TTL\": \"1h\"}}").code(),
                "a held lock's TTL does not change");
        assertEquals(409, call("PUT", "leader", Map.of(), items("who", "b")).status(), "not the holder");
        assertEquals(409, call("DELETE", "leader", Map.of(), null).status(), "a held lock is not deleted");
        assertEquals(200, call("PUT", "leader", Map.of(),
                "{\"Items\": {\"who\": \"a2\"}, \"Lock\": {\"ID\": \"" + id + "\"}}").status());

        ApiResponse renewed = call("PUT", "leader", Map.of("lock-renew", ""), "{\"Lock\": {\"ID\": \"" + id + "\"}}");
        assertEquals(200, renewed.status());
        assertFalse(json(renewed).has("Items"), "a renewal answers the metadata");
        assertEquals(409, call("PUT", "leader", Map.of("lock-release", ""), "{\"Lock\": {\"ID\": \"other\"}}")
                .status());
        assertTrue(refused("PUT", "leader", Map.of("lock-release", ""),
                "{\"Items\": {\"x\": \"y\"}, \"Lock\": {\"ID\": \"" + id + "\"}}").getMessage()
                .startsWith("Items: lock-release does not change the items"));
        ApiResponse released = call("PUT", "leader", Map.of("lock-release", ""),
                "{\"Lock\": {\"ID\": \"" + id + "\"}}");
        assertEquals(200, released.status());
        assertFalse(json(released).has("Lock"));
        assertEquals(409, call("PUT", "leader", Map.of("lock-renew", ""), "{\"Lock\": {\"ID\": \"" + id + "\"}}")
                .status());
        assertEquals(ErrorCode.NOT_FOUND, refused("PUT", "nowhere", Map.of("lock-release", ""),
                "{\"Lock\": {\"ID\": \"x\"}}").code());
    }

    @Test
    void theListHoldsMetadataByPrefixPagedAndOnlyWhatTheCallerMayList() throws Exception {
        for (String path : List.of("app/a", "app/b", "app/c", "other/x")) {
            call("PUT", path, Map.of(), items("k", path));
        }
        call("PUT", "app/z", Map.of("namespace", "prod"), items("k", "prod"));

        JsonNode all = json(call("GET", null, Map.of(), null));
        assertEquals(4, all.size());
        assertFalse(all.get(0).has("Items"), "metadata only");
        assertEquals("app/a", all.get(0).get("Path").asText());

        assertEquals(3, json(call("GET", null, Map.of("prefix", "app/"), null)).size());
        assertEquals(5, json(call("GET", null, Map.of("namespace", "*"), null)).size());
        assertEquals(4, json(call("GET", null, Map.of("namespace", "*", "prefix", "app"), null)).size());

        ApiResponse page = call("GET", null, Map.of("prefix", "app/", "per_page", "2"), null);
        assertEquals(2, json(page).size());
        assertEquals("default.app/c", page.meta().nextToken());
        JsonNode rest = json(call("GET", null, Map.of("prefix", "app/", "per_page", "2", "next_token",
                page.meta().nextToken()), null));
        assertEquals(1, rest.size());
        assertEquals("app/c", rest.get(0).get("Path").asText());

        JsonNode filtered = json(call("GET", null, Map.of("filter", "Path == \"other/x\""), null));
        assertEquals(1, filtered.size());

        JsonNode visible = json(call("GET", null, Map.of("namespace", "*"), null, READER));
        assertEquals(3, visible.size(), "only default's app/*: " + visible);
    }

    @Test
    void pathRulesDecideReadsWritesAndWhatAConflictShows() throws Exception {
        call("PUT", "app/a", Map.of(), items("k", "v"));
        call("PUT", "secret/a", Map.of(), items("k", "v"));
        call("PUT", "drop/a", Map.of(), items("k", "hidden"));
        assertEquals(200, call("GET", "app/a", Map.of(), null, READER).status());
        assertEquals(ErrorCode.PERMISSION_DENIED, refused("GET", "secret/a", Map.of(), null, READER).code());
        assertEquals(ErrorCode.PERMISSION_DENIED, refused("PUT", "app/a", Map.of(), items("k", "w"), READER).code());
        assertEquals(ErrorCode.PERMISSION_DENIED, refused("DELETE", "app/a", Map.of(), null, READER).code());
        // The denial comes before the lookup: a missing variable is no 404 to someone who may not read it.
        assertEquals(ErrorCode.PERMISSION_DENIED, refused("GET", "secret/none", Map.of(), null, READER).code());

        ApiResponse conflict = call("PUT", "drop/a", Map.of("cas", "0"), items("k", "mine"), READER);
        assertEquals(409, conflict.status());
        assertEquals(0, json(conflict).get("Items").size(), "a writer who may not read sees no items");
    }
}
