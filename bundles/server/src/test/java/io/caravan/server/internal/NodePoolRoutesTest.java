package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.AclRule;
import io.caravan.api.json.NomadJson;
import io.caravan.api.model.Node;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Node pools: the built-ins, CRUD, pools in use, nodes creating their pool, and jobs naming unknown pools. */
class NodePoolRoutesTest {
    private final RoutesHarness h = new RoutesHarness();

    NodePoolRoutesTest() {
        h.add(new NodePoolRoutes(h.state, h.raft, new ClusterRoutesTest.Agent(true, false)));
    }

    @AfterEach
    void stop() {
        h.close();
    }

    private List<String> listed() throws Exception {
        JsonNode all = NomadJson.mapper().valueToTree(h.call("GET", "/v1/node/pools", Map.of(), null).body());
        List<String> names = new java.util.ArrayList<>();
        all.forEach(p -> names.add(p.path("Name").asText()));
        return names;
    }

    private static JsonNode pool(String json) {
        return RoutesHarness.json(json);
    }

    @Test
    void builtInsExistAndCannotBeChangedOrDeleted() throws Exception {
        assertEquals(List.of("all", "default"), listed());
        JsonNode def = NomadJson.mapper().valueToTree(h.call("GET", "/v1/node/pool/{name}",
                Map.of("name", "default"), null).body());
        assertEquals("Default node pool.", def.path("Description").asText());
        assertEquals("modifying node pool \"all\" is not allowed", h.refused("DELETE", "/v1/node/pool/{name}",
                Map.of("name", "all"), null).getMessage());
        assertEquals("modifying node pool \"default\" is not allowed", h.refused("PUT", "/v1/node/pools", Map.of(),
                pool("{\"Name\": \"default\", \"Description\": \"x\"}")).getMessage());
        assertEquals(ErrorCode.NOT_FOUND, h.refused("GET", "/v1/node/pool/{name}", Map.of("name", "gpu"), null)
                .code());
    }

    @Test
    void createReadUpdateDelete() throws Exception {
        h.call("PUT", "/v1/node/pools", Map.of(), pool("""
                {"Name": "gpu", "Description": "GPUs", "Meta": {"team": "ml"},
                 "SchedulerConfiguration": {"SchedulerAlgorithm": "spread"}}"""));
        JsonNode gpu = NomadJson.mapper().valueToTree(h.call("GET", "/v1/node/pool/{name}", Map.of("name", "gpu"),
                null).body());
        assertEquals("GPUs", gpu.path("Description").asText());
        assertEquals("ml", gpu.path("Meta").path("team").asText());
        assertEquals("spread", gpu.path("SchedulerConfiguration").path("SchedulerAlgorithm").asText());
        long created = gpu.path("CreateIndex").asLong();
        h.call("POST", "/v1/node/pool/{name}", Map.of("name", "gpu"), pool("{\"Description\": \"g\"}"));
        JsonNode updated = NomadJson.mapper().valueToTree(h.call("GET", "/v1/node/pool/{name}",
                Map.of("name", "gpu"), null).body());
        assertEquals("g", updated.path("Description").asText());
        assertEquals(created, updated.path("CreateIndex").asLong());
        assertEquals(List.of("all", "default", "gpu"), listed());
        JsonNode filtered = NomadJson.mapper().valueToTree(h.call("GET", "/v1/node/pools",
                Map.of("?filter", "Description == \"g\""), null).body());
        assertEquals(1, filtered.size());
        assertEquals("gpu", filtered.get(0).path("Name").asText());
        h.call("DELETE", "/v1/node/pool/{name}", Map.of("name", "gpu"), null);
        assertEquals(List.of("all", "default"), listed());
        assertEquals(ErrorCode.NOT_FOUND, h.refused("DELETE", "/v1/node/pool/{name}", Map.of("name", "gpu"), null)
                .code());
    }

    @Test
    void badPoolsAreRefusedAndNothingIsWritten() {
        long before = h.writes.get();
        assertEquals(ErrorCode.BAD_REQUEST, h.refused("PUT", "/v1/node/pools", Map.of(),
                pool("{\"Name\": \"no spaces\"}")).code());
        assertEquals("invalid node pool: invalid scheduler algorithm \"fast\"", h.refused("PUT", "/v1/node/pools",
                Map.of(), pool("{\"Name\": \"p\", \"SchedulerConfiguration\": {\"SchedulerAlgorithm\": \"fast\"}}"))
                .getMessage());
        assertEquals("Quota: not a node pool field", h.refused("PUT", "/v1/node/pools", Map.of(),
                pool("{\"Name\": \"p\", \"Quota\": \"q\"}")).getMessage());
        assertEquals("Node pool name does not match request path", h.refused("PUT", "/v1/node/pool/{name}",
                Map.of("name", "a"), pool("{\"Name\": \"b\"}")).getMessage());
        assertEquals(before, h.writes.get(), "nothing written");
    }

    @Test
    void aNodeCreatesItsPoolAndAPoolInUseCannotBeDeleted() throws Exception {
        Node node = NodeLifecycleTest.node("n1", "ready").toBuilder().nodePool("edge").build();
        h.raft.submitAndWait(new Command.NodeRegister(node, List.of()));
        assertEquals(List.of("all", "default", "edge"), listed());
        JsonNode nodes = NomadJson.mapper().valueToTree(h.call("GET", "/v1/node/pool/{name}/nodes",
                Map.of("name", "edge"), null).body());
        assertEquals("n1", nodes.get(0).path("ID").asText());
        assertEquals(0, NomadJson.mapper().valueToTree(h.call("GET", "/v1/node/pool/{name}/nodes",
                Map.of("name", "default"), null).body()).size());
        assertEquals(1, NomadJson.mapper().valueToTree(h.call("GET", "/v1/node/pool/{name}/nodes",
                Map.of("name", "all"), null).body()).size());
        assertEquals("node pool \"edge\" has nodes in regions: [global]", h.refused("DELETE",
                "/v1/node/pool/{name}", Map.of("name", "edge"), null).getMessage());
    }

    @Test
    void aJobInAnUnknownPoolIsA400AndAJobInAPoolIsListedThere() throws Exception {
        JsonNode job = JobLifecycleTest.job("web").deepCopy();
        ((ObjectNode) job.get("Job")).put("NodePool", "gpu");
        long before = h.writes.get();
        assertEquals("job \"web\" is in nonexistent node pool \"gpu\"", h.refused("PUT", "/v1/jobs", Map.of(), job)
                .getMessage());
        assertEquals(before, h.writes.get());
        h.call("PUT", "/v1/node/pools", Map.of(), pool("{\"Name\": \"gpu\"}"));
        h.call("PUT", "/v1/jobs", Map.of(), job);
        JsonNode jobs = NomadJson.mapper().valueToTree(h.call("GET", "/v1/node/pool/{name}/jobs",
                Map.of("name", "gpu"), null).body());
        assertEquals("web", jobs.get(0).path("ID").asText());
        assertEquals("node pool \"gpu\" has non-terminal jobs in regions: [global]", h.refused("DELETE",
                "/v1/node/pool/{name}", Map.of("name", "gpu"), null).getMessage());
    }

    @Test
    void nodePoolRulesDecideWhoReadsWritesAndDeletes() throws Exception {
        h.call("PUT", "/v1/node/pools", Map.of(), pool("{\"Name\": \"gpu\"}"));
        h.call("PUT", "/v1/node/pools", Map.of(), pool("{\"Name\": \"edge\"}"));
        io.caravan.api.acl.Acl gpuReader = new io.caravan.api.acl.Acl() {
            public boolean isManagement() { return false; }
            public boolean allowNamespace(String namespace, String capability) { return false; }
            public boolean allowAnyNamespace(String capability) { return false; }
            public boolean allow(io.caravan.api.acl.Scope scope, io.caravan.api.acl.Access access) { return false; }
            public boolean allowHostVolume(String name, String capability) { return false; }
            public boolean allowVariable(String namespace, String path, String capability) { return false; }
            @Override
            public boolean allowNodePool(String p, String capability) {
                return p.equals("gpu") && capability.equals("read");
            }
        };
        io.caravan.api.acl.Identity reader = new io.caravan.api.acl.Identity(io.caravan.api.acl.Identity.Kind.TOKEN,
                "a", "gpu-reader", gpuReader);
        JsonNode seen = NomadJson.mapper().valueToTree(h.call("GET", "/v1/node/pools", Map.of(), null, reader)
                .body());
        assertEquals(1, seen.size());
        assertEquals("gpu", seen.get(0).path("Name").asText());
        var get = h.endpoint("GET", "/v1/node/pool/{name}");
        assertEquals("gpu", get.namespace().apply(new RoutesHarness.Request("GET", "/v1/node/pool/{name}",
                Map.of("name", "gpu"), null, reader)), "the rule is checked on the pool the path names");
        assertTrue(get.rule().allows(reader, "gpu"));
        assertTrue(!get.rule().allows(reader, "edge"));
        assertTrue(!h.endpoint("DELETE", "/v1/node/pool/{name}").rule().allows(reader, "gpu"));
        var upsert = h.endpoint("PUT", "/v1/node/pools");
        assertEquals("node_pool:write", upsert.rule().describe());
        assertEquals("edge", upsert.namespace().apply(new RoutesHarness.Request("PUT", "/v1/node/pools", Map.of(),
                pool("{\"Name\": \"edge\"}"), reader)));
        var nodes = h.endpoint("GET", "/v1/node/pool/{name}/nodes");
        assertTrue(!nodes.rule().allows(reader, "gpu"), "a pool's nodes also take node:read");
        assertEquals("node_pool:read&node:read", nodes.rule().describe());
    }

    @Test
    void aPoolsSchedulerConfigurationOverridesTheClustersForItsJobs() throws Exception {
        h.call("PUT", "/v1/node/pools", Map.of(), pool("""
                {"Name": "gpu", "SchedulerConfiguration": {"SchedulerAlgorithm": "spread",
                 "MemoryOversubscriptionEnabled": true}}"""));
        h.call("PUT", "/v1/node/pools", Map.of(), pool("{\"Name\": \"plain\"}"));
        SnapshotSchedulerState state = new SnapshotSchedulerState(h.snapshot());
        io.caravan.api.model.Job job = Jobs.canonical(JobLifecycleTest.job("web"), "global");
        assertEquals("binpack", state.configuration(job).schedulerAlgorithm(), "default pool: the cluster's");
        io.caravan.scheduler.SchedulerConfiguration gpu = state.configuration(job.toBuilder().nodePool("gpu")
                .build());
        assertEquals("spread", gpu.schedulerAlgorithm());
        assertTrue(gpu.memoryOversubscriptionEnabled());
        assertEquals("binpack", state.configuration(job.toBuilder().nodePool("plain").build())
                .schedulerAlgorithm());
    }

    @Test
    void theApplierRefusesAJobWhosePoolWasDeletedAfterTheEndpointChecked() throws Exception {
        h.call("PUT", "/v1/node/pools", Map.of(), pool("{\"Name\": \"gpu\"}"));
        io.caravan.api.model.Job job = Jobs.canonical(JobLifecycleTest.job("web"), "global").toBuilder()
                .nodePool("gpu").build();
        h.call("DELETE", "/v1/node/pool/{name}", Map.of("name", "gpu"), null);
        io.caravan.api.CaravanException e = org.junit.jupiter.api.Assertions.assertThrows(
                io.caravan.api.CaravanException.class, () -> h.raft.submitAndWait(new Command.JobRegister(job,
                        io.caravan.api.model.Evaluation.forJob("e1", job,
                                io.caravan.api.model.Evaluation.TRIGGER_JOB_REGISTER, 0), false, 0)));
        assertEquals("job \"web\" is in nonexistent node pool \"gpu\"", e.getMessage());
        assertTrue(h.snapshot().get(NomadTables.JOBS, NomadTables.key("default", "web")).isEmpty());
    }
}
