package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.Access;
import io.caravan.api.acl.Acl;
import io.caravan.api.acl.Identity;
import io.caravan.api.acl.Scope;
import io.caravan.api.json.NomadJson;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiRequest;
import io.caravan.http.ApiResponse;
import io.caravan.http.AsyncHandler;
import io.caravan.http.QueryOptions;
import io.caravan.http.RouteTable;
import io.caravan.state.StateTxn;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The server's routes as the API servlet runs them (the endpoint's rule in the namespace the endpoint names, then
 * the handler), for a token that may do everything in namespace {@code dev}, read nodes, and nothing else: objects
 * are checked in their own namespace whatever the query says, and lists hold only what the token may read.
 */
class RouteAclTest {
    /** Every namespace capability in {@code dev} (and only there), {@code node:read}. */
    static final Acl DEV_ONLY = new Acl() {
        public boolean isManagement() { return false; }
        public boolean allowNamespace(String namespace, String capability) { return "dev".equals(namespace); }
        public boolean allowAnyNamespace(String capability) { return true; }
        public boolean allow(Scope scope, Access access) { return scope == Scope.NODE && access == Access.READ; }
        public boolean allowHostVolume(String name, String capability) { return false; }
        public boolean allowVariable(String namespace, String path, String capability) { return false; }
    };
    static final Identity DEV = new Identity(Identity.Kind.TOKEN, "accessor-dev", "dev", DEV_ONLY);
    static final Identity NOBODY = Identity.anonymous(Acl.NONE);

    private final ServerState state = new ServerState();
    /** The Raft index the fixture's objects are written at; later writes follow it. */
    private static final long SEEDED = 100;
    private final AtomicLong writes = new AtomicLong(SEEDED);
    private final Map<String, Declared> routes = new HashMap<>();

    record Declared(ApiEndpoint endpoint, AsyncHandler handler) {}

    RouteAclTest() throws Exception {
        RaftWrites raft = JobLimitsTest.writes(state, writes);
        RouteTable table = new RouteTable() {
            public RouteTable routeAsync(String method, String pattern, ApiEndpoint endpoint, AsyncHandler handler) {
                routes.put(method + " " + pattern, new Declared(endpoint, handler));
                return this;
            }
        };
        new JobRoutes(state, new ClusterRoutesTest.Agent(true, false), raft, JobLimitsTest.config(100))
                .register(table);
        new EvalRoutes(state, raft).register(table);
        new NodeRoutes(state, raft).register(table);
        new NamespaceRoutes(state, raft, new ClusterRoutesTest.Agent(true, false)).register(table);
        new ClientForwardRoutes(state, null, null).register(table);   // declaring forwards nothing
        try (StateTxn txn = state.store().begin(SEEDED)) {
            for (String ns : List.of("dev", "prod")) {
                txn.put(NomadTables.NAMESPACES, new Namespaces.Namespace(ns, "", "", null, null, null, SEEDED, SEEDED));
                Job job = Jobs.canonical(body(job(ns)), "global");
                txn.put(NomadTables.JOBS, job);
                txn.put(NomadTables.EVALS, Evaluation.forJob("eval-" + ns, job, Evaluation.TRIGGER_JOB_REGISTER, 0));
                txn.put(NomadTables.ALLOCS, NomadJson.mapper().readValue("""
                        {"ID": "alloc-%s", "Namespace": "%s", "EvalID": "eval-%s", "Name": "web.web[0]",
                         "NodeID": "node-1", "JobID": "web", "Job": %s, "TaskGroup": "web", "DesiredStatus": "run",
                         "ClientStatus": "running"}
                        """.formatted(ns, ns, ns, NomadJson.mapper().writeValueAsString(job)), Allocation.class));
            }
            txn.commit();
        }
    }

    @AfterEach
    void stop() {
        state.deactivate();
    }

    // ---- objects by ID: their own namespace --------------------------------------------------------------------

    @Test
    void anAllocationIsCheckedInItsOwnNamespaceNotTheQuerys() {
        assertEquals(200, answer(DEV, "GET /v1/allocation/{id}", "alloc-dev").status());
        assertDenied(call(DEV, "GET /v1/allocation/{id}", "alloc-prod", "namespace", "dev"));
        assertDenied(call(DEV, "PUT /v1/allocation/{id}/stop", "alloc-prod", "namespace", "dev"));
        assertEquals(SEEDED, writes.get(), "a refused stop writes nothing");
    }

    @Test
    void anEvaluationAndItsAllocationsAreCheckedInTheEvaluationsNamespace() {
        assertEquals(200, answer(DEV, "GET /v1/evaluation/{id}", "eval-dev").status());
        assertDenied(call(DEV, "GET /v1/evaluation/{id}", "eval-prod", "namespace", "dev"));
        assertDenied(call(DEV, "GET /v1/evaluation/{id}/allocations", "eval-prod", "namespace", "dev"));
        assertEquals(List.of("alloc-dev"), ids(answer(DEV, "GET /v1/evaluation/{id}/allocations", "eval-dev")));
    }

    @Test
    void aMissingObjectIsTheHandlers404InTheQuerysNamespace() {
        assertError(call(DEV, "GET /v1/allocation/{id}", "no-such-alloc", "namespace", "dev"), 404,
                "alloc not found");
        assertDenied(call(DEV, "GET /v1/allocation/{id}", "no-such-alloc", "namespace", "prod"));
        assertError(call(DEV, "GET /v1/evaluation/{id}", "no-such-eval", "namespace", "dev"), 404, "eval not found");
    }

    @Test
    void callsForwardedToAClientAreCheckedInTheAllocationsNamespace() {
        // (the host's /v1/client/stats is node:read, not an allocation's)
        List<String> forwarded = routes.keySet().stream().filter(route -> route.contains("/v1/client/"))
                .filter(route -> !route.endsWith("/v1/client/stats")).sorted().toList();
        assertEquals(6 + 4 * 3 + 1, forwarded.size(), forwarded.toString());
        for (String route : forwarded) {
            assertDenied(call(DEV, route, "alloc-prod", "namespace", "dev"));
            ApiEndpoint endpoint = routes.get(route).endpoint();
            assertEquals("dev", endpoint.namespace().apply(request(DEV, "alloc-dev", null, Map.of("namespace",
                    "prod"))), route);
            assertEquals("prod", endpoint.namespace().apply(request(DEV, "no-such-alloc", null, Map.of("namespace",
                    "prod"))), "an unknown allocation: the query's namespace, and the handler's 404");
        }
    }

    // ---- lists: the namespace asked for, rows the caller may read -----------------------------------------------

    @Test
    void listsOverEveryNamespaceHoldOnlyTheRowsTheCallerMayRead() {
        assertEquals(List.of("alloc-dev"), ids(answer(DEV, "GET /v1/allocations", null, "namespace", "*")));
        assertEquals(List.of("eval-dev"), ids(answer(DEV, "GET /v1/evaluations", null, "namespace", "*")));
        assertEquals(List.of("dev"), namespaces(answer(DEV, "GET /v1/jobs", null, "namespace", "*")));
        assertEquals(List.of("alloc-dev", "alloc-prod"), ids(answer(Identity.UNRESTRICTED, "GET /v1/allocations",
                null, "namespace", "*")), "a management token sees every namespace");
    }

    @Test
    void aListOfOneNamespaceHoldsOnlyThatNamespace() {
        assertEquals(List.of("alloc-dev"), ids(answer(DEV, "GET /v1/allocations", null, "namespace", "dev")));
        assertEquals(List.of("eval-prod"), ids(answer(Identity.UNRESTRICTED, "GET /v1/evaluations", null,
                "namespace", "prod")));
        assertDenied(call(DEV, "GET /v1/allocations", null, "namespace", "prod"));
        assertDenied(call(NOBODY, "GET /v1/jobs", null, "namespace", "*"));
    }

    @Test
    void aFilteredListKeepsItsIndex() {
        ApiResponse all = answer(DEV, "GET /v1/allocations", null, "namespace", "*");
        assertEquals(SEEDED, all.meta().index(), "the table's index, as without ACLs");
    }

    @Test
    void aNodesAllocationsNeedNodeReadAndHoldOnlyReadableNamespaces() {
        assertEquals(List.of("alloc-dev"), ids(answer(DEV, "GET /v1/node/{id}/allocations", "node-1")));
        assertDenied(call(NOBODY, "GET /v1/node/{id}/allocations", "node-1"));
        assertEquals(2, ids(answer(Identity.UNRESTRICTED, "GET /v1/node/{id}/allocations", "node-1")).size());
    }

    @Test
    void namespacesAreListedOnlyWhereTheCallerHasSomeCapability() {
        assertEquals(List.of("dev"), names(answer(DEV, "GET /v1/namespaces", null)));
        assertEquals(List.of("default", "dev", "prod"), names(answer(Identity.UNRESTRICTED, "GET /v1/namespaces",
                null)));
    }

    @Test
    void aNamespaceIsReadableOnlyWithSomeCapabilityInItWhetherOrNotItExists() {
        answer(DEV, "GET /v1/namespace/{name}", "dev");
        assertDenied(call(DEV, "GET /v1/namespace/{name}", "prod"));
        // a 404 here would tell a caller with rights only in "dev" that no namespace "secret" exists
        assertDenied(call(DEV, "GET /v1/namespace/{name}", "secret", "namespace", "dev"));
        assertError(call(Identity.UNRESTRICTED, "GET /v1/namespace/{name}", "secret"), 404, "Namespace not found");
    }

    // ---- job writes: the namespace Nomad resolves for the job ---------------------------------------------------

    @Test
    void aJobBodyInAnotherNamespaceIsRefusedAndNothingIsWritten() {
        assertDenied(call(DEV, "PUT /v1/jobs", null, body(job("prod"))));
        assertDenied(call(DEV, "PUT /v1/job/{id}/plan", "web", body(job("prod"))));
        assertDenied(call(DEV, "PUT /v1/validate/job", null, body(job("prod"))));
        assertEquals(SEEDED, writes.get(), "nothing written");
        assertEquals(200, answer(DEV, "PUT /v1/validate/job", null, body(job("dev"))).status());
    }

    @Test
    void theQuerysNamespaceWinsOverTheJobsAsInNomad() {
        assertDenied(call(DEV, "PUT /v1/jobs", null, body(job("dev")), "namespace", "prod"));
        assertEquals(200, answer(DEV, "PUT /v1/jobs", null, body(job("prod").put("ID", "api")), "namespace", "dev")
                .status());
        assertTrue(state.store().snapshot().get(NomadTables.JOBS, NomadTables.key("dev", "api")).isPresent(),
                "registered in the query's namespace");
        assertTrue(state.store().snapshot().get(NomadTables.JOBS, NomadTables.key("prod", "api")).isEmpty());
    }

    @Test
    void aJobWithoutNamespaceTakesTheBodysThenDefault() {
        ObjectNode job = job("dev");
        job.remove("Namespace");
        ObjectNode body = body(job);
        assertEquals("default", JobRoutes.jobNamespace(request(DEV, null, null, Map.of()), body));
        body.put("Namespace", "dev");
        assertEquals("dev", JobRoutes.jobNamespace(request(DEV, null, null, Map.of()), body));
        assertEquals("dev", JobRoutes.jobNamespace(request(DEV, null, null, Map.of()), body(job("dev"))));
        assertError(call(DEV, "PUT /v1/jobs", null, body(job("dev")), "namespace", "*"), 400,
                "Namespace: a job is written to one namespace, not \"*\"");
    }

    // ---- fixtures ----------------------------------------------------------------------------------------------

    static ObjectNode job(String namespace) {
        return JobLimitsTest.job("web", 1).put("Namespace", namespace);
    }

    static ObjectNode body(ObjectNode job) {
        return JobLimitsTest.wrap(job);
    }

    record Request(String method, String path, String id, Map<String, String> params, JsonNode json,
                   Identity identity) implements ApiRequest {
        public String pathParam(String name) { return name.equals("id") || name.equals("alloc") || name.equals("name") ? id : null; }
        public Optional<String> query(String name) { return Optional.ofNullable(params.get(name)); }
        public List<String> queryAll(String name) { return query(name).map(List::of).orElse(List.of()); }
        public Optional<String> header(String name) { return Optional.empty(); }
        public Optional<String> token() { return Optional.empty(); }
        public QueryOptions options() {
            return new QueryOptions("global", params.getOrDefault("namespace", "default"), 0, Duration.ZERO, false,
                    "", "", 0, "", false);
        }
        public <T> T body(Class<T> type) {
            try {
                return NomadJson.mapper().treeToValue(json, type);
            } catch (Exception e) {
                throw new IllegalArgumentException(e);
            }
        }
        public String remoteAddress() { return "127.0.0.1"; }
    }

    private static Request request(Identity caller, String id, JsonNode body, Map<String, String> params) {
        return new Request("GET", "/", id, params, body, caller);
    }

    /** Runs a route as the dispatcher does: the rule in the endpoint's namespace, then the handler. */
    private Object call(Identity caller, String route, String id, Object... rest) {
        Declared declared = routes.get(route);
        assertTrue(declared != null, "no route " + route);
        JsonNode body = rest.length % 2 == 1 ? (JsonNode) rest[0] : null;
        Map<String, String> params = new HashMap<>();
        for (int i = rest.length % 2; i < rest.length; i += 2) {
            params.put((String) rest[i], (String) rest[i + 1]);
        }
        Request r = new Request(route.substring(0, route.indexOf(' ')), route.substring(route.indexOf(' ') + 1), id,
                params, body, caller);
        try {
            if (!declared.endpoint().rule().allows(caller, declared.endpoint().namespace().apply(r))) {
                throw new CaravanException(ErrorCode.PERMISSION_DENIED, "Permission denied");
            }
            return declared.handler().handle(r).toCompletableFuture().get(5, TimeUnit.SECONDS);
        } catch (CaravanException e) {
            return e;
        } catch (java.util.concurrent.ExecutionException | CompletionException e) {
            return e.getCause();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private ApiResponse answer(Identity caller, String route, String id, Object... rest) {
        Object answer = call(caller, route, id, rest);
        if (answer instanceof Throwable t) {
            fail("expected an answer from " + route, t);
        }
        return (ApiResponse) answer;
    }

    private static void assertDenied(Object answer) {
        assertError(answer, 403, "Permission denied");
    }

    private static void assertError(Object answer, int status, String message) {
        if (!(answer instanceof CaravanException e)) {
            fail("expected a " + status + ", got " + answer);
            return;
        }
        assertEquals(status, e.code().httpStatus(), e.getMessage());
        assertEquals(message, e.getMessage());
    }

    private static List<String> field(ApiResponse response, String name) {
        List<String> out = new ArrayList<>();
        NomadJson.mapper().valueToTree(response.body()).forEach(row -> out.add(row.path(name).asText()));
        return out;
    }

    private static List<String> ids(ApiResponse response) {
        return field(response, "ID");
    }

    private static List<String> namespaces(ApiResponse response) {
        return field(response, "Namespace");
    }

    private static List<String> names(ApiResponse response) {
        return field(response, "Name");
    }
}
