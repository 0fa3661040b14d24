package io.caravan.client.http.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import io.caravan.api.acl.Access;
import io.caravan.api.acl.Acl;
import io.caravan.api.acl.Capability;
import io.caravan.api.acl.Identity;
import io.caravan.api.acl.Scope;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.AsyncHandler;
import io.caravan.http.RouteTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client's routes check their rule in the namespace of the allocation they act on: a token of namespace
 * {@code dev} cannot read the files or logs of an allocation in {@code prod}, nor restart it, by passing
 * {@code ?namespace=dev}.
 */
class ClientRoutesAclTest {
    @TempDir
    Path temp;

    /** The given capabilities in one namespace, nothing else. */
    static Acl only(String namespace, Set<String> capabilities) {
        return new Acl() {
            public boolean isManagement() { return false; }
            public boolean allowNamespace(String ns, String capability) {
                return namespace.equals(ns) && capabilities.contains(capability);
            }
            public boolean allowAnyNamespace(String capability) { return capabilities.contains(capability); }
            public boolean allow(Scope scope, Access access) { return false; }
            public boolean allowHostVolume(String name, String capability) { return false; }
            public boolean allowVariable(String ns, String path, String capability) { return false; }
        };
    }

    static Identity token(Acl acl) {
        return new Identity(Identity.Kind.TOKEN, "accessor", "test", acl);
    }

    /** Every client route, by method and pattern, with the endpoint it declared. */
    private Map<String, ApiEndpoint> routes(TestAllocs allocs) {
        Map<String, ApiEndpoint> declared = new LinkedHashMap<>();
        RouteTable table = new RouteTable() {
            public RouteTable routeAsync(String method, String pattern, ApiEndpoint endpoint, AsyncHandler handler) {
                declared.put(method + " " + pattern, endpoint);
                return this;
            }
        };
        new ClientFsRoutes(allocs, null, System::currentTimeMillis).register(table);   // declaring streams nothing
        new ClientAllocRoutes(allocs).register(table);
        new ClientExecRoutes(allocs).register(table);
        // The host's stats are not an allocation's: node:read, whatever the namespace (hostStatsNeedNodeRead).
        declared.remove("GET /v1/client/stats");
        return declared;
    }

    private TestAllocs allocs() {
        TestAllocs allocs = new TestAllocs();
        allocs.dirs.put("in-prod", temp.resolve("in-prod"));
        allocs.namespaces.put("in-prod", "prod");
        allocs.dirs.put("in-dev", temp.resolve("in-dev"));
        allocs.namespaces.put("in-dev", "dev");
        return allocs;
    }

    @Test
    void everyRuleIsCheckedInTheAllocationsNamespaceNotTheQuerys() {
        Map<String, ApiEndpoint> routes = routes(allocs());
        assertEquals(15, routes.size(), routes.keySet().toString());
        Identity dev = token(only("dev", Set.copyOf(Capability.ALL)));
        routes.forEach((route, endpoint) -> {
            TestRequest prod = TestRequest.get("in-prod", "namespace=dev");
            assertEquals("prod", endpoint.namespace().apply(prod), route);
            assertFalse(endpoint.rule().allows(dev, endpoint.namespace().apply(prod)), route);
            TestRequest own = TestRequest.get("in-dev", "namespace=prod");
            assertTrue(endpoint.rule().allows(dev, endpoint.namespace().apply(own)), route);
            // Unknown here: the query's namespace, and the handler answers 404.
            assertEquals("dev", endpoint.namespace().apply(TestRequest.get("gone", "namespace=dev")), route);
        });
    }

    @Test
    void logsNeedReadLogsOrReadFsAndFilesReadFs() {
        Map<String, ApiEndpoint> routes = routes(allocs());
        Identity logsOnly = token(only("prod", Set.of(Capability.READ_LOGS)));
        TestRequest prod = TestRequest.get("in-prod", "");
        ApiEndpoint logs = routes.get("GET /v1/client/fs/logs/{alloc}");
        ApiEndpoint cat = routes.get("GET /v1/client/fs/cat/{alloc}");
        assertEquals("ClientFS.Logs", logs.name());
        assertTrue(logs.rule().allows(logsOnly, logs.namespace().apply(prod)));
        assertFalse(cat.rule().allows(logsOnly, cat.namespace().apply(prod)));
        Identity fs = token(only("prod", Set.of(Capability.READ_FS)));
        assertTrue(logs.rule().allows(fs, logs.namespace().apply(prod)));
        assertTrue(cat.rule().allows(fs, cat.namespace().apply(prod)));
    }

    @Test
    void lifecycleCallsNeedAllocLifecycleAndGcSubmitJob() {
        Map<String, ApiEndpoint> routes = routes(allocs());
        Identity lifecycle = token(only("prod", Set.of(Capability.ALLOC_LIFECYCLE)));
        TestRequest prod = TestRequest.get("in-prod", "");
        for (String route : new String[] {"PUT /v1/client/allocation/{alloc}/restart",
                "GET /v1/client/allocation/{alloc}/restart", "POST /v1/client/allocation/{alloc}/signal"}) {
            ApiEndpoint e = routes.get(route);
            assertTrue(e.rule().allows(lifecycle, e.namespace().apply(prod)), route);
        }
        ApiEndpoint gc = routes.get("GET /v1/client/allocation/{alloc}/gc");
        assertEquals("ClientAllocations.GarbageCollect", gc.name());
        assertFalse(gc.rule().allows(lifecycle, gc.namespace().apply(prod)));
        assertTrue(gc.rule().allows(token(only("prod", Set.of(Capability.SUBMIT_JOB))), gc.namespace().apply(prod)));
    }

    @Test
    void execNeedsAllocExecAndHostStatsNodeRead() {
        Map<String, ApiEndpoint> routes = routes(allocs());
        TestRequest prod = TestRequest.get("in-prod", "");
        ApiEndpoint exec = routes.get("GET /v1/client/allocation/{alloc}/exec");
        assertEquals("ClientAllocations.Exec", exec.name());
        assertTrue(exec.rule().allows(token(only("prod", Set.of(Capability.ALLOC_EXEC))), exec.namespace().apply(prod)));
        assertFalse(exec.rule().allows(token(only("prod", Set.of(Capability.READ_FS, Capability.ALLOC_LIFECYCLE))),
                exec.namespace().apply(prod)));
        ApiEndpoint host = ClientAllocRoutes.HOST_STATS;
        assertFalse(host.rule().allows(token(only("prod", Set.copyOf(Capability.ALL))), "prod"));
        Acl nodeRead = new Acl() {
            public boolean isManagement() { return false; }
            public boolean allowNamespace(String ns, String capability) { return false; }
            public boolean allowAnyNamespace(String capability) { return false; }
            public boolean allow(Scope scope, Access access) { return scope == Scope.NODE && access == Access.READ; }
            public boolean allowHostVolume(String name, String capability) { return false; }
            public boolean allowVariable(String ns, String path, String capability) { return false; }
        };
        assertTrue(host.rule().allows(token(nodeRead), "default"));
    }
}
