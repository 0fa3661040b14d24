package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.AclRule;
import io.caravan.api.json.NomadJson;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.http.ApiResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code /v1/evaluations}: the list's parameters, the count, and the delete's rules (broker paused, IDs or a filter,
 * only safe evaluations by ID) and its bounded entries.
 */
class EvalRoutesTest {
    private final RoutesHarness h = new RoutesHarness();

    EvalRoutesTest() {
        h.add(new EvalRoutes(h.state, h.raft));
        h.raft.submitAndWait(new Command.NamespaceUpsert(List.of(new Namespaces.Namespace("other", "", "", null,
                null, null, 0, 0))));
    }

    @AfterEach
    void stop() {
        h.close();
    }

    private Job job(String namespace, String id) throws Exception {
        Job job = FsmTest.job(id, 50).toBuilder().namespace(namespace).build();
        h.raft.submitAndWait(new Command.JobRegister(job, null, false, 0));
        return h.snapshot().get(NomadTables.JOBS, NomadTables.key(namespace, id)).orElseThrow();
    }

    private static Evaluation eval(String id, Job job, String status) {
        return Evaluation.forJob(id, job, Evaluation.TRIGGER_JOB_REGISTER, 1).toBuilder().status(status).build();
    }

    /** e0..e9 of job a (complete, odd ones failed) in default; f0..f4 of job b (pending) in "other". */
    private void evals() throws Exception {
        Job a = job("default", "a");
        Job b = job("other", "b");
        List<Evaluation> all = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            all.add(eval("e" + i, a, i % 2 == 0 ? Evaluation.STATUS_COMPLETE : Evaluation.STATUS_FAILED));
        }
        for (int i = 0; i < 5; i++) {
            all.add(eval("f" + i, b, Evaluation.STATUS_PENDING));
        }
        h.raft.submitAndWait(new Command.EvalUpsert(all));
    }

    @SuppressWarnings("unchecked")
    private List<String> ids(ApiResponse r) {
        return ((List<Evaluation>) r.body()).stream().map(Evaluation::id).toList();
    }

    private ApiResponse list(String... query) throws Exception {
        Map<String, String> params = new HashMap<>();
        for (int i = 0; i < query.length; i += 2) {
            params.put("?" + query[i], query[i + 1]);
        }
        return h.call("GET", "/v1/evaluations", params, null);
    }

    private void pause(boolean paused) {
        h.raft.submitAndWait(new Command.SchedulerConfigUpdate(new SchedulerConfig(null, null, false, false, paused,
                0, 0), false, 0));
    }

    private JsonNode delete(String body) throws Exception {
        return NomadJson.mapper().valueToTree(h.call("DELETE", "/v1/evaluations", Map.of(),
                RoutesHarness.json(body)).body());
    }

    @Test
    void listHonoursNamespaceJobStatusReverseFilterAndPages() throws Exception {
        evals();
        assertEquals(List.of("e0", "e1", "e2", "e3", "e4", "e5", "e6", "e7", "e8", "e9"), ids(list()));
        assertEquals(List.of("f0", "f1", "f2", "f3", "f4"), ids(list("namespace", "other")));
        assertEquals(15, ids(list("namespace", "*")).size());
        assertEquals(List.of("f0", "f1", "f2", "f3", "f4"), ids(list("namespace", "*", "job", "b")));
        assertEquals(List.of("e1", "e3", "e5", "e7", "e9"), ids(list("status", "failed")));
        assertEquals(List.of("e9", "e8", "e7"), ids(list("reverse", "true", "per_page", "3")));
        ApiResponse page = list("reverse", "true", "per_page", "3", "status", "complete");
        assertEquals(List.of("e8", "e6", "e4"), ids(page));
        assertEquals("e2", page.meta().nextToken());
        assertEquals(List.of("e2", "e0"), ids(list("reverse", "true", "per_page", "3", "status", "complete",
                "next_token", "e2")));
        ApiResponse forward = list("per_page", "4", "filter", "Status == \"complete\"");
        assertEquals(List.of("e0", "e2", "e4", "e6"), ids(forward));
        assertEquals("e8", forward.meta().nextToken());
        assertEquals(List.of("f3", "f4"), ids(list("namespace", "*", "prefix", "f", "next_token", "f3")));
    }

    @Test
    void countIsNomadsShapeAndHonoursTheFilterAndNamespace() throws Exception {
        evals();
        JsonNode count = NomadJson.mapper().valueToTree(h.call("GET", "/v1/evaluations/count",
                Map.of("?filter", "Status == \"failed\""), null).body());
        assertEquals(5, count.path("Count").asInt());
        assertEquals(15, NomadJson.mapper().valueToTree(h.call("GET", "/v1/evaluations/count",
                Map.of("?namespace", "*"), null).body()).path("Count").asInt());
        assertEquals(ErrorCode.BAD_REQUEST, h.refused("GET", "/v1/evaluations/count",
                Map.of("?filter", "Status =="), null).code());
    }

    @Test
    void deleteIsManagementOnlyAndRefusedUntilTheBrokerIsPaused() throws Exception {
        assertEquals(AclRule.MANAGEMENT, h.endpoint("DELETE", "/v1/evaluations").rule());
        evals();
        var refused = h.refused("DELETE", "/v1/evaluations", Map.of(), RoutesHarness.json(
                "{\"Filter\": \"Status == \\\"failed\\\"\"}"));
        assertEquals(ErrorCode.BAD_REQUEST, refused.code());
        assertEquals("eval broker is enabled; eval broker must be paused to delete evals", refused.getMessage());
        pause(true);
        assertEquals("evals cannot be deleted by both ID and filter", h.refused("DELETE", "/v1/evaluations",
                Map.of(), RoutesHarness.json("{\"EvalIDs\": [\"e1\"], \"Filter\": \"Status == \\\"failed\\\"\"}"))
                .getMessage());
        assertEquals("evals must be deleted by either ID or filter", h.refused("DELETE", "/v1/evaluations",
                Map.of(), RoutesHarness.json("{}")).getMessage());
        assertEquals(ErrorCode.BAD_REQUEST, h.refused("DELETE", "/v1/evaluations", Map.of(),
                RoutesHarness.json("{\"Filter\": \"Nope ==\"}")).code());
        assertEquals(15, h.snapshot().count(NomadTables.EVALS), "nothing deleted by a refused request");
    }

    @Test
    void deleteByFilterWritesOnePagePerEntryAndCountsWhatMatched() throws Exception {
        evals();
        pause(true);
        long before = h.writes.get();
        JsonNode r = delete("{\"Filter\": \"JobID == \\\"a\\\"\", \"PerPage\": 3}");
        assertEquals(10, r.path("Count").asInt());
        assertEquals(4, h.writes.get() - before, "10 matches, 3 a page: 4 entries");
        assertEquals(List.of("f0", "f1", "f2", "f3", "f4"), h.snapshot().all(NomadTables.EVALS).map(Evaluation::id)
                .toList());
        assertEquals(0, delete("{\"Filter\": \"JobID == \\\"a\\\"\"}").path("Count").asInt());
    }

    @Test
    void deleteByIdSkipsAnEvaluationWhoseAllocationsStillRunForALiveJob() throws Exception {
        evals();
        Job a = h.snapshot().get(NomadTables.JOBS, "default\0a").orElseThrow();
        h.raft.submitAndWait(new Command.NodeRegister(NodeLifecycleTest.node("n", "ready"), List.of()));
        Allocation running = DeploymentApplyTest.alloc("x", null, false).toBuilder().jobId("a").evalId("e0")
                .clientStatus(Allocation.CLIENT_RUNNING).build();
        h.raft.submitAndWait(new Command.PlanApply("e0", a, List.of(), List.of(running), 1));
        pause(true);
        JsonNode r = delete("{\"EvalIDs\": [\"e0\", \"e1\", \"missing\"]}");
        assertEquals(1, r.path("Count").asInt());
        assertTrue(h.snapshot().get(NomadTables.EVALS, "e0").isPresent());
        assertTrue(h.snapshot().get(NomadTables.EVALS, "e1").isEmpty());
    }
}
