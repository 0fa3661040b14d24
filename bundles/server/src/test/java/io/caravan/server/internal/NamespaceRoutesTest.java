package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.AclRule;
import io.caravan.api.json.NomadJson;
import io.caravan.api.model.Job;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Namespaces: CRUD as Nomad's endpoints, {@code default} always there, and jobs only in namespaces that exist. */
class NamespaceRoutesTest {
    private final RoutesHarness h = new RoutesHarness();

    NamespaceRoutesTest() {
        h.add(new NamespaceRoutes(h.state, h.raft, new ClusterRoutesTest.Agent(true, false)));
    }

    @AfterEach
    void stop() {
        h.close();
    }

    private static JsonNode ns(String json) {
        return RoutesHarness.json(json);
    }

    @SuppressWarnings("unchecked")
    private List<String> listed() throws Exception {
        List<Namespaces.Namespace> all = (List<Namespaces.Namespace>) h.call("GET", "/v1/namespaces", Map.of(), null)
                .body();
        return all.stream().map(Namespaces.Namespace::name).toList();
    }

    private JsonNode read(String name) throws Exception {
        return NomadJson.mapper().valueToTree(h.call("GET", "/v1/namespace/{name}", Map.of("name", name), null)
                .body());
    }

    @Test
    void defaultExistsFromTheStartAndCannotBeDeleted() throws Exception {
        assertEquals(List.of("default"), listed());
        JsonNode def = read("default");
        assertEquals("Default shared namespace", def.path("Description").asText());
        assertEquals(1, def.path("CreateIndex").asLong());
        CaravanException e = h.refused("DELETE", "/v1/namespace/{name}", Map.of("name", "default"), null);
        assertEquals(ErrorCode.BAD_REQUEST, e.code());
        assertEquals("can not delete default namespace", e.getMessage());
        // Its description may change; it stays.
        h.call("PUT", "/v1/namespace/{name}", Map.of("name", "default"), ns("{\"Description\": \"ours\"}"));
        assertEquals("ours", read("default").path("Description").asText());
        assertEquals("can not delete default namespace",
                h.refused("DELETE", "/v1/namespace/{name}", Map.of("name", "default"), null).getMessage());
    }

    @Test
    void createReadUpdateListAndDelete() throws Exception {
        h.call("PUT", "/v1/namespace", Map.of(), ns("""
                {"Name": "prod", "Description": "production", "Meta": {"team": "ops"}}"""));
        JsonNode prod = read("prod");
        assertEquals("production", prod.path("Description").asText());
        assertEquals("ops", prod.path("Meta").path("team").asText());
        long created = prod.path("CreateIndex").asLong();
        assertTrue(created > 0);

        h.call("POST", "/v1/namespace/{name}", Map.of("name", "prod"), ns("{\"Name\": \"prod\", \"Description\": \"p\"}"));
        JsonNode updated = read("prod");
        assertEquals("p", updated.path("Description").asText());
        assertEquals(created, updated.path("CreateIndex").asLong());
        assertTrue(updated.path("ModifyIndex").asLong() > created);
        assertEquals(List.of("default", "prod"), listed());

        h.call("DELETE", "/v1/namespace/{name}", Map.of("name", "prod"), null);
        assertEquals(List.of("default"), listed());
        assertEquals(ErrorCode.NOT_FOUND, h.refused("GET", "/v1/namespace/{name}", Map.of("name", "prod"), null)
                .code());
        assertEquals(ErrorCode.NOT_FOUND, h.refused("DELETE", "/v1/namespace/{name}", Map.of("name", "prod"), null)
                .code());
    }

    @Test
    void badNamespacesAreRefusedNamingWhy() {
        long before = h.writes.get();
        assertEquals("Invalid namespace \"no spaces\": invalid name \"no spaces\". Must match regex "
                + "^[a-zA-Z0-9-]{1,128}$", h.refused("PUT", "/v1/namespace", Map.of(),
                ns("{\"Name\": \"no spaces\"}")).getMessage());
        assertEquals("Invalid namespace \"x\": description longer than 256", h.refused("PUT", "/v1/namespace",
                Map.of(), ns("{\"Name\": \"x\", \"Description\": \"" + "d".repeat(257) + "\"}")).getMessage());
        assertEquals("Namespace name does not match request path", h.refused("PUT", "/v1/namespace/{name}",
                Map.of("name", "a"), ns("{\"Name\": \"b\"}")).getMessage());
        CaravanException quota = h.refused("PUT", "/v1/namespace", Map.of(), ns("{\"Name\": \"q\", \"Quota\": \"q1\"}"));
        assertEquals("Quota: not supported by Caravan", quota.getMessage());
        assertEquals(ErrorCode.BAD_REQUEST, quota.code());
        assertEquals(before, h.writes.get(), "nothing written");
    }

    @Test
    void aJobInANamespaceThatDoesNotExistIsRefusedAndNothingIsWritten() throws Exception {
        long before = h.writes.get();
        CaravanException e = h.refused("PUT", "/v1/jobs", Map.of("?namespace", "prod"), JobLifecycleTest.job("web"));
        assertEquals(ErrorCode.BAD_REQUEST, e.code());
        assertEquals("namespace \"prod\" does not exist", e.getMessage());
        JsonNode inBody = JobLifecycleTest.job("web").deepCopy();
        ((com.fasterxml.jackson.databind.node.ObjectNode) inBody.get("Job")).put("Namespace", "prod");
        assertEquals("namespace \"prod\" does not exist", h.refused("PUT", "/v1/jobs", Map.of(), inBody).getMessage());
        assertEquals("namespace \"prod\" does not exist", h.refused("PUT", "/v1/job/{id}/plan",
                Map.of("id", "web"), inBody).getMessage());
        assertEquals(before, h.writes.get(), "nothing written");

        h.call("PUT", "/v1/namespace", Map.of(), ns("{\"Name\": \"prod\"}"));
        h.call("PUT", "/v1/jobs", Map.of(), inBody);
        assertTrue(h.snapshot().get(NomadTables.JOBS, NomadTables.key("prod", "web")).isPresent());
    }

    @Test
    void aNamespaceWithALiveJobCannotBeDeletedAndOneWithOnlyDeadJobsCan() throws Exception {
        h.call("PUT", "/v1/namespace", Map.of(), ns("{\"Name\": \"prod\"}"));
        h.call("PUT", "/v1/jobs", Map.of("?namespace", "prod"), JobLifecycleTest.job("web"));
        CaravanException e = h.refused("DELETE", "/v1/namespace/{name}", Map.of("name", "prod"), null);
        assertEquals(ErrorCode.BAD_REQUEST, e.code());
        assertEquals("namespace \"prod\" has non-terminal jobs in regions: [global]", e.getMessage());

        h.call("DELETE", "/v1/job/{id}", Map.of("id", "web", "?namespace", "prod"), null);
        h.schedule();
        assertEquals(Job.STATUS_DEAD, h.snapshot().get(NomadTables.JOBS, NomadTables.key("prod", "web"))
                .orElseThrow().status());
        h.call("DELETE", "/v1/namespace/{name}", Map.of("name", "prod"), null);
        assertEquals(List.of("default"), listed());
        // The dead job cannot come back to life there.
        assertEquals("namespace \"prod\" does not exist", h.refused("PUT", "/v1/jobs", Map.of("?namespace", "prod"),
                JobLifecycleTest.job("web")).getMessage());
    }

    @Test
    void theApplierRefusesAJobInANamespaceDeletedAfterTheEndpointChecked() throws Exception {
        h.call("PUT", "/v1/namespace", Map.of(), ns("{\"Name\": \"prod\"}"));
        Job job = Jobs.canonical(JobLifecycleTest.job("web"), "global").toBuilder().namespace("prod").build();
        h.call("DELETE", "/v1/namespace/{name}", Map.of("name", "prod"), null);
        CaravanException e = org.junit.jupiter.api.Assertions.assertThrows(CaravanException.class,
                () -> h.raft.submitAndWait(new Command.JobRegister(job, io.caravan.api.model.Evaluation.forJob("e1",
                        job, io.caravan.api.model.Evaluation.TRIGGER_JOB_REGISTER, 0), false, 0)));
        assertEquals("namespace \"prod\" does not exist", e.getMessage());
        assertTrue(h.snapshot().get(NomadTables.JOBS, NomadTables.key("prod", "web")).isEmpty());
    }

    @Test
    void writesNeedManagementAndReadsAnyCapabilityInTheNamespace() throws Exception {
        assertEquals(AclRule.MANAGEMENT, h.endpoint("PUT", "/v1/namespace").rule());
        assertEquals(AclRule.MANAGEMENT, h.endpoint("POST", "/v1/namespace/{name}").rule());
        assertEquals(AclRule.MANAGEMENT, h.endpoint("DELETE", "/v1/namespace/{name}").rule());
        h.call("PUT", "/v1/namespace", Map.of(), ns("{\"Name\": \"dev\"}"));
        h.call("PUT", "/v1/namespace", Map.of(), ns("{\"Name\": \"prod\"}"));
        // Reading one: the dispatcher checks the rule in the namespace the path names.
        var get = h.endpoint("GET", "/v1/namespace/{name}");
        var request = new RoutesHarness.Request("GET", "/v1/namespace/{name}", Map.of("name", "prod"), null,
                RouteAclTest.DEV);
        assertEquals("prod", get.namespace().apply(request));
        assertEquals("missing", get.namespace().apply(new RoutesHarness.Request("GET", "/v1/namespace/{name}",
                Map.of("name", "missing"), null, RouteAclTest.DEV)), "a missing one too: no existence disclosure");
        assertTrue(!get.rule().allows(RouteAclTest.DEV, "prod"));
        assertTrue(get.rule().allows(RouteAclTest.DEV, "dev"));
        @SuppressWarnings("unchecked")
        List<Namespaces.Namespace> seen = (List<Namespaces.Namespace>) h.call("GET", "/v1/namespaces", Map.of(),
                null, RouteAclTest.DEV).body();
        assertEquals(List.of("dev"), seen.stream().map(Namespaces.Namespace::name).toList());
    }
}
