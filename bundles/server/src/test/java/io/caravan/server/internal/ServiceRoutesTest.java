package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.json.NomadJson;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.api.model.ServiceRegistration;
import io.caravan.http.ApiEndpoint;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code /v1/services}, {@code /v1/service/:name} with {@code choose}, and the delete, over registered instances. */
class ServiceRoutesTest {
    private final RoutesHarness h = new RoutesHarness();

    @BeforeEach
    void place() throws Exception {
        h.add(new ServiceRoutes(h.state.store(), h.raft));
        h.raft.submitAndWait(new Command.NodeRegister(NodeLifecycleTest.node("n", "ready"), List.of()));
        Job job = FsmTest.job("web", 50);
        h.raft.submitAndWait(new Command.JobRegister(job, Evaluation.forJob("e", job, "job-register", 0), false, 0));
        Job stored = h.snapshot().get(NomadTables.JOBS, "default\0web").orElseThrow();
        h.raft.submitAndWait(new Command.PlanApply("e", stored, List.of(), List.of(
                DeploymentApplyTest.alloc("a1", null, false), DeploymentApplyTest.alloc("a2", null, false),
                DeploymentApplyTest.alloc("a3", null, false)), 1L, null, List.of()));
        h.raft.submitAndWait(new Command.ServiceRegistrationUpsert(List.of(reg("a1", "api", List.of("v1")),
                reg("a2", "api", List.of("v2")), reg("a3", "api", List.of("v1")), reg("a1", "db", List.of()))));
    }

    @AfterEach
    void close() {
        h.close();
    }

    private static ServiceRegistration reg(String alloc, String name, List<String> tags) {
        return new ServiceRegistration(ServiceRegistration.allocServiceId(alloc, "web", name, "http"), name,
                "default", "n", "dc1", "web", alloc, tags, "127.0.0.1", 20000 + alloc.charAt(1), 0, 0);
    }

    private JsonNode get(String pattern, Map<String, String> params) throws Exception {
        return NomadJson.mapper().valueToTree(h.call("GET", pattern, params, null).body());
    }

    @Test
    void eachEndpointDeclaresItsRule() {
        assertEquals("namespace:read-job", h.endpoint("GET", "/v1/services").rule().describe());
        assertEquals("namespace:read-job", h.endpoint("GET", "/v1/service/{name}").rule().describe());
        ApiEndpoint delete = h.endpoint("DELETE", "/v1/service/{name}/{id}");
        assertEquals("namespace:submit-job", delete.rule().describe());
        assertEquals(ApiEndpoint.Routing.LEADER, delete.routing());
    }

    @Test
    void theListGivesEachNamespacesServicesWithTheirTags() throws Exception {
        JsonNode list = get("/v1/services", Map.of());
        assertEquals(1, list.size());
        assertEquals("default", list.get(0).get("Namespace").asText());
        assertEquals("[{\"ServiceName\":\"api\",\"Tags\":[\"v1\",\"v2\"]},{\"ServiceName\":\"db\",\"Tags\":[]}]",
                list.get(0).get("Services").toString());
    }

    @Test
    void aServiceListsItsInstancesInNomadsShape() throws Exception {
        JsonNode api = get("/v1/service/{name}", Map.of("name", "api"));
        assertEquals(3, api.size());
        JsonNode first = api.get(0);
        for (String field : List.of("ID", "ServiceName", "Namespace", "NodeID", "Datacenter", "JobID", "AllocID",
                "Tags", "Address", "Port", "CreateIndex", "ModifyIndex")) {
            assertTrue(first.has(field), field + " in " + first);
        }
        assertEquals(0, get("/v1/service/{name}", Map.of("name", "nope")).size());
    }

    @Test
    void chooseKeepsPickingTheSameInstancesForAKey() throws Exception {
        JsonNode two = get("/v1/service/{name}", Map.of("name", "api", "?choose", "2|client-1"));
        assertEquals(2, two.size());
        assertEquals(two, get("/v1/service/{name}", Map.of("name", "api", "?choose", "2|client-1")));
        JsonNode one = get("/v1/service/{name}", Map.of("name", "api", "?choose", "1|client-1"));
        assertEquals(two.get(0), one.get(0), "the top instance for a key stays the top one");
        CaravanException bad = h.refused("GET", "/v1/service/{name}", Map.of("name", "api", "?choose", "x|k"), null);
        assertEquals(ErrorCode.BAD_REQUEST, bad.code());
        assertTrue(bad.getMessage().startsWith("choose:"), bad.getMessage());
        assertEquals(ErrorCode.BAD_REQUEST, h.refused("GET", "/v1/service/{name}",
                Map.of("name", "api", "?choose", "2"), null).code());
    }

    @Test
    void aDeleteRemovesOneInstanceAndAnUnknownOneIsNotFound() throws Exception {
        String id = reg("a2", "api", List.of()).id();
        h.call("DELETE", "/v1/service/{name}/{id}", Map.of("name", "api", "id", id), null);
        assertEquals(2, get("/v1/service/{name}", Map.of("name", "api")).size());
        assertEquals(ErrorCode.NOT_FOUND, h.refused("DELETE", "/v1/service/{name}/{id}",
                Map.of("name", "api", "id", id), null).code());
        assertEquals(ErrorCode.NOT_FOUND, h.refused("DELETE", "/v1/service/{name}/{id}",
                Map.of("name", "db", "id", reg("a1", "api", List.of()).id()), null).code(),
                "the ID must belong to the named service");
    }
}
