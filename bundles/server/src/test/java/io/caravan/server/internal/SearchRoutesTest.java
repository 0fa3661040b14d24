package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.api.ErrorCode;
import io.caravan.api.json.NomadJson;
import io.caravan.api.model.Allocation;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Prefix and fuzzy search: shapes as Nomad's, the 20-match cap, odd UUID prefixes, and what a token may see. */
class SearchRoutesTest {
    private final RoutesHarness h = new RoutesHarness();

    SearchRoutesTest() {
        h.add(new SearchRoutes(h.state, h.raft)).add(new NamespaceRoutes(h.state, h.raft,
                new ClusterRoutesTest.Agent(true, false)));
    }

    @AfterEach
    void stop() {
        h.close();
    }

    private JsonNode search(String body, Map<String, String> params) throws Exception {
        return NomadJson.mapper().valueToTree(h.call("POST", "/v1/search", params, RoutesHarness.json(body)).body());
    }

    @Test
    void jobsByPrefixCappedAtTwentyWithTruncation() throws Exception {
        for (int i = 0; i < 22; i++) {
            h.call("PUT", "/v1/jobs", Map.of(), JobLifecycleTest.job("web-" + (100 + i)));
        }
        h.call("PUT", "/v1/jobs", Map.of(), JobLifecycleTest.job("api"));
        JsonNode answer = search("{\"Prefix\": \"web\", \"Context\": \"jobs\"}", Map.of());
        assertEquals(20, answer.path("Matches").path("jobs").size());
        assertEquals("web-100", answer.path("Matches").path("jobs").get(0).asText());
        assertTrue(answer.path("Truncations").path("jobs").asBoolean());
        assertEquals(1, answer.path("Matches").size(), "only the context asked for");

        JsonNode api = search("{\"Prefix\": \"ap\", \"Context\": \"jobs\"}", Map.of());
        assertEquals(List.of("api"), texts(api.path("Matches").path("jobs")));
        assertFalse(api.path("Truncations").path("jobs").asBoolean());
    }

    @Test
    void allSearchesEveryContextAndAnOddUuidPrefixIsCutToEvenLength() throws Exception {
        h.call("PUT", "/v1/jobs", Map.of(), JobLifecycleTest.job("web"));
        h.raft.submitAndWait(new Command.NodeRegister(NodeLifecycleTest.node("ab12cd34-0000-0000-0000-000000000000",
                "ready"), List.of()));
        String evalId = h.snapshot().all(NomadTables.EVALS).findFirst().orElseThrow().id();
        JsonNode all = search("{\"Prefix\": \"" + evalId.substring(0, 5) + "\", \"Context\": \"all\"}", Map.of());
        assertEquals(SearchRoutes.CONTEXTS.size(), all.path("Matches").size());
        assertTrue(texts(all.path("Matches").path("evals")).contains(evalId), all.toString());
        JsonNode nodes = search("{\"Prefix\": \"ab1\", \"Context\": \"nodes\"}", Map.of());
        assertEquals(List.of("ab12cd34-0000-0000-0000-000000000000"), texts(nodes.path("Matches").path("nodes")));
        JsonNode pools = search("{\"Prefix\": \"\", \"Context\": \"node_pools\"}", Map.of());
        assertEquals(List.of("all", "default"), texts(pools.path("Matches").path("node_pools")));
    }

    @Test
    void allocationsAreFoundByPrefixOnlyInTheNamespaceSearched() throws Exception {
        h.call("PUT", "/v1/namespace", Map.of(), RoutesHarness.json("{\"Name\": \"dev\"}"));
        h.call("PUT", "/v1/jobs", Map.of("?namespace", "dev"), JobLifecycleTest.job("web"));
        Allocation alloc = NomadJson.mapper().readValue("""
                {"ID": "0123abcd-0000-0000-0000-000000000000", "Namespace": "dev", "EvalID": "e", "Name": "web.web[0]",
                 "NodeID": "n", "JobID": "web", "TaskGroup": "web", "DesiredStatus": "run", "ClientStatus": "running"}
                """, Allocation.class);
        try (io.caravan.state.StateTxn txn = h.state.store().begin(h.snapshot().latestIndex() + 1)) {
            txn.put(NomadTables.ALLOCS, alloc);
            txn.commit();
        }
        assertEquals(List.of(alloc.id()), texts(search("{\"Prefix\": \"0123\", \"Context\": \"allocs\"}",
                Map.of("?namespace", "dev")).path("Matches").path("allocs")));
        assertEquals(List.of(), texts(search("{\"Prefix\": \"0123\", \"Context\": \"allocs\"}", Map.of())
                .path("Matches").path("allocs")));
    }

    @Test
    void aTokenSeesOnlyWhatItMayReadAndIsRefusedAContextItCannotRead() throws Exception {
        h.call("PUT", "/v1/namespace", Map.of(), RoutesHarness.json("{\"Name\": \"dev\"}"));
        h.call("PUT", "/v1/jobs", Map.of("?namespace", "dev"), JobLifecycleTest.job("web-dev"));
        h.call("PUT", "/v1/jobs", Map.of(), JobLifecycleTest.job("web-default"));
        JsonNode star = NomadJson.mapper().valueToTree(h.call("POST", "/v1/search", Map.of("?namespace", "*"),
                RoutesHarness.json("{\"Prefix\": \"web\", \"Context\": \"jobs\"}"), RouteAclTest.DEV).body());
        assertEquals(List.of("web-dev"), texts(star.path("Matches").path("jobs")));
        assertEquals(ErrorCode.PERMISSION_DENIED, org.junit.jupiter.api.Assertions.assertThrows(
                io.caravan.api.CaravanException.class, () -> h.call("POST", "/v1/search", Map.of(),
                        RoutesHarness.json("{\"Prefix\": \"web\", \"Context\": \"jobs\"}"), RouteAclTest.NOBODY))
                .code());
        JsonNode all = NomadJson.mapper().valueToTree(h.call("POST", "/v1/search", Map.of("?namespace", "default"),
                RoutesHarness.json("{\"Prefix\": \"\", \"Context\": \"all\"}"), RouteAclTest.DEV).body());
        assertFalse(all.path("Matches").has("jobs"), "no job may be read in default: " + all);
        assertTrue(all.path("Matches").has("nodes"));
    }

    @Test
    void badRequestsAreRefusedNamingWhy() {
        assertEquals(ErrorCode.BAD_REQUEST, h.refused("POST", "/v1/search", Map.of(),
                RoutesHarness.json("{\"Prefix\": \"a\", \"Context\": \"cats\"}")).code());
        assertEquals("Context: missing", h.refused("POST", "/v1/search", Map.of(),
                RoutesHarness.json("{\"Prefix\": \"a\"}")).getMessage());
        assertEquals(ErrorCode.BAD_REQUEST, h.refused("POST", "/v1/search/fuzzy", Map.of(),
                RoutesHarness.json("{\"Text\": \"a\", \"Context\": \"all\"}")).code());
    }

    @Test
    void fuzzyFindsJobsGroupsTasksAndCommandsWithTheirScope() throws Exception {
        h.call("PUT", "/v1/jobs", Map.of(), JobLifecycleTest.job("myweb"));
        JsonNode answer = NomadJson.mapper().valueToTree(h.call("POST", "/v1/search/fuzzy", Map.of(),
                RoutesHarness.json("{\"Text\": \"web\", \"Context\": \"all\"}")).body());
        JsonNode matches = answer.path("Matches");
        assertEquals("myweb", matches.path("jobs").get(0).path("ID").asText());
        assertEquals(List.of("default", "myweb"), texts(matches.path("jobs").get(0).path("Scope")));
        assertEquals("web", matches.path("groups").get(0).path("ID").asText());
        JsonNode sleep = NomadJson.mapper().valueToTree(h.call("POST", "/v1/search/fuzzy", Map.of(),
                RoutesHarness.json("{\"Text\": \"sleep\", \"Context\": \"jobs\"}")).body());
        assertEquals(List.of("default", "myweb", "web", "server"),
                texts(sleep.path("Matches").path("commands").get(0).path("Scope")));
    }

    private static List<String> texts(JsonNode array) {
        List<String> out = new java.util.ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }
}
