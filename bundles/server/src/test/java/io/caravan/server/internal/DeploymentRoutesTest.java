package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.api.CaravanException;
import io.caravan.api.acl.Identity;
import io.caravan.api.json.NomadJson;
import io.caravan.api.model.Deployment;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiResponse;
import io.caravan.http.AsyncHandler;
import io.caravan.http.RouteTable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The deployment endpoints end to end through the FSM: Nomad's shapes and errors. */
class DeploymentRoutesTest {
    private final ServerState state = new ServerState();
    private final AtomicLong index = new AtomicLong(10);
    private final RaftWrites raft = JobLimitsTest.writes(state, index);
    private final Map<String, AsyncHandler> routes = new HashMap<>();
    private final Map<String, ApiEndpoint> endpoints = new HashMap<>();

    DeploymentRoutesTest() throws Exception {
        new DeploymentRoutes(state, raft).register(new RouteTable() {
            public RouteTable routeAsync(String method, String pattern, ApiEndpoint endpoint, AsyncHandler handler) {
                routes.put(method + " " + pattern, handler);
                endpoints.put(method + " " + pattern, endpoint);
                return this;
            }
        });
        write(new Command.NodeRegister(NodeLifecycleTest.node("n", "ready"), List.of()));
        Job v0 = FsmTest.job("web", 50);
        write(new Command.JobRegister(v0, Evaluation.forJob("e0", v0, "job-register", 0), false, 0));
        Job v1 = FsmTest.job("web", 70);
        write(new Command.JobRegister(v1, Evaluation.forJob("e1", v1, "job-register", 0), false, 0));
        Job job = state.store().snapshot().get(NomadTables.JOBS, "default\0web").orElseThrow();
        write(new Command.PlanApply("e1", job, List.of(), List.of(DeploymentApplyTest.alloc("a0", "d1", true),
                DeploymentApplyTest.alloc("a1", "d1", false)), 1000, DeploymentApplyTest.deployment("d1", job, 2, 1),
                List.of()));
    }

    @AfterEach
    void stop() {
        state.deactivate();
    }

    private void write(Command c) {
        raft.submit(c).toCompletableFuture().join();
    }

    private Object call(String route, String id, String body) {
        AsyncHandler handler = routes.get(route);
        assertTrue(handler != null, "no route " + route);
        try {
            JsonNode json = body == null ? null : NomadJson.mapper().readTree(body);
            RouteAclTest.Request r = new RouteAclTest.Request(route.substring(0, route.indexOf(' ')),
                    route.substring(route.indexOf(' ') + 1), id, Map.of(), json, Identity.UNRESTRICTED);
            return handler.handle(r).toCompletableFuture().get(5, TimeUnit.SECONDS);
        } catch (CaravanException e) {
            return e;
        } catch (ExecutionException | CompletionException e) {
            return e.getCause();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private JsonNode ok(String route, String id, String body) {
        Object answer = call(route, id, body);
        if (answer instanceof Throwable t) {
            fail("expected an answer from " + route, t);
        }
        return NomadJson.mapper().valueToTree(((ApiResponse) answer).body());
    }

    private static void error(Object answer, int status, String message) {
        if (!(answer instanceof CaravanException e)) {
            fail("expected a " + status + ", got " + answer);
            return;
        }
        assertEquals(status, e.code().httpStatus());
        assertEquals(message, e.getMessage());
    }

    private Deployment d1() {
        return state.store().snapshot().get(NomadTables.DEPLOYMENTS, "d1").orElseThrow();
    }

    @Test
    void readsAnswerNomadsShapes() {
        JsonNode d = ok("GET /v1/deployment/{id}", "d1", null);
        assertEquals("d1", d.path("ID").asText());
        assertEquals(1, d.path("JobVersion").asInt());
        assertEquals(2, d.path("TaskGroups").path("web").path("PlacedAllocs").asInt());
        assertEquals("a0", d.path("TaskGroups").path("web").path("PlacedCanaries").get(0).asText());
        error(call("GET /v1/deployment/{id}", "nope", null), 404, "deployment not found");
        assertEquals(List.of("a0", "a1"), ids(ok("GET /v1/deployment/allocations/{id}", "d1", null)));
        assertEquals(List.of("d1"), ids(ok("GET /v1/deployments", null, null)));
        assertEquals(List.of("d1"), ids(ok("GET /v1/job/{id}/deployments", "web", null)));
        assertEquals("d1", ok("GET /v1/job/{id}/deployment", "web", null).path("ID").asText());
        assertTrue(ok("GET /v1/job/{id}/deployment", "other", null).isNull(), "no deployment: null");
        assertEquals("default", endpoints.get("POST /v1/deployment/fail/{id}").namespace()
                .apply(new RouteAclTest.Request("POST", "/", "d1", Map.of("namespace", "prod"), null,
                        Identity.UNRESTRICTED)), "a deployment is authorized in its own namespace");
    }

    private static List<String> ids(JsonNode rows) {
        List<String> out = new java.util.ArrayList<>();
        rows.forEach(row -> out.add(row.path("ID").asText()));
        return out;
    }

    @Test
    void healthThenPromotion() {
        error(call("POST /v1/deployment/promote/{id}", "d1", "{\"All\": true}"), 400,
                "Task group \"web\" has 0/1 healthy allocations");
        error(call("POST /v1/deployment/allocation-health/{id}", "d1", "{}"), 400,
                "HealthyAllocationIDs: must specify at least one healthy/unhealthy allocation ID");
        error(call("POST /v1/deployment/allocation-health/{id}", "d1", "{\"HealthyAllocationIDs\": [\"zz\"]}"),
                400, "unknown alloc \"zz\"");
        JsonNode health = ok("POST /v1/deployment/allocation-health/{id}", "d1",
                "{\"HealthyAllocationIDs\": [\"a0\"]}");
        assertTrue(!health.path("EvalID").asText().isEmpty());
        assertEquals(health.path("Index").asLong(), health.path("DeploymentModifyIndex").asLong());
        assertTrue(health.has("RevertedJobVersion") && health.path("RevertedJobVersion").isNull());
        assertEquals(1, d1().taskGroups().get("web").healthyAllocs());
        JsonNode promoted = ok("POST /v1/deployment/promote/{id}", "d1", "{\"Groups\": [\"web\"]}");
        assertTrue(d1().taskGroups().get("web").promoted());
        Evaluation eval = state.store().snapshot().get(NomadTables.EVALS, promoted.path("EvalID").asText())
                .orElseThrow();
        assertEquals(Evaluation.TRIGGER_DEPLOYMENT_WATCHER, eval.triggeredBy());
        assertEquals("d1", eval.deploymentId());
    }

    @Test
    void pauseResumeFailAndTerminalErrors() {
        ok("PUT /v1/deployment/pause/{id}", "d1", "{\"Pause\": true}");
        assertEquals(Deployment.STATUS_PAUSED, d1().status());
        assertEquals("Deployment paused by user", d1().statusDescription());
        ok("PUT /v1/deployment/pause/{id}", "d1", "{\"Pause\": false}");
        assertEquals(Deployment.STATUS_RUNNING, d1().status());
        error(call("POST /v1/deployment/unblock/{id}", "d1", "{}"), 400, "can't unblock running deployment");
        JsonNode failed = ok("POST /v1/deployment/fail/{id}", "d1", "{}");
        assertTrue(failed.path("RevertedJobVersion").isNull(), "no auto_revert");
        assertEquals(Deployment.STATUS_FAILED, d1().status());
        assertEquals("Deployment marked as failed", d1().statusDescription());
        error(call("POST /v1/deployment/fail/{id}", "d1", "{}"), 400, "can't fail terminal deployment");
        error(call("POST /v1/deployment/promote/{id}", "d1", "{\"All\": true}"), 400,
                "can't promote terminal deployment");
        error(call("PUT /v1/deployment/pause/{id}", "d1", "{\"Pause\": true}"), 400,
                "can't pause terminal deployment");
        error(call("POST /v1/deployment/unblock/{id}", "d1", "{}"), 400, "can't unblock terminal deployment");
        error(call("POST /v1/deployment/fail/{id}", "nope", "{}"), 404, "deployment not found");
    }

    @Test
    void revertAndStability() {
        error(call("POST /v1/job/{id}/revert", "web", "{\"JobID\": \"web\", \"JobVersion\": 1}"), 400,
                "can't revert to current version");
        error(call("POST /v1/job/{id}/revert", "web", "{\"JobID\": \"web\", \"JobVersion\": 0, "
                + "\"EnforcePriorVersion\": 0}"), 400, "Current job has version 1; enforcing version 0");
        error(call("POST /v1/job/{id}/revert", "web", "{\"JobID\": \"other\", \"JobVersion\": 0}"), 400,
                "Job ID does not match");
        error(call("POST /v1/job/{id}/revert", "web", "{\"JobVersion\": 7}"), 404,
                "job \"web\" in namespace \"default\" at version 7 not found");
        JsonNode reverted = ok("POST /v1/job/{id}/revert", "web", "{\"JobID\": \"web\", \"JobVersion\": 0, "
                + "\"EnforcePriorVersion\": 1}");
        assertTrue(!reverted.path("EvalID").asText().isEmpty());
        Job job = state.store().snapshot().get(NomadTables.JOBS, "default\0web").orElseThrow();
        assertEquals(2L, job.version());
        assertEquals(50, job.priority(), "version 0's spec");

        ok("POST /v1/job/{id}/stable", "web", "{\"JobID\": \"web\", \"JobVersion\": 2, \"Stable\": true}");
        assertTrue(state.store().snapshot().get(NomadTables.JOBS, "default\0web").orElseThrow().stable());
        error(call("POST /v1/job/{id}/stable", "web", "{\"JobVersion\": 9, \"Stable\": true}"), 404,
                "job \"web\" at version 9 not found");
    }

    /** The tag routes take two path parameters: the job's {@code id} and the {@code tag}. */
    private Object tagCall(String method, String tag, String body) {
        AsyncHandler handler = routes.get(method + " /v1/job/{id}/versions/{tag}/tag");
        assertTrue(handler != null, "no tag route for " + method);
        try {
            JsonNode json = body == null ? null : NomadJson.mapper().readTree(body);
            RouteAclTest.Request inner = new RouteAclTest.Request(method, "/v1/job/web/versions/" + tag + "/tag",
                    "web", Map.of(), json, Identity.UNRESTRICTED);
            io.caravan.http.ApiRequest r = (io.caravan.http.ApiRequest) java.lang.reflect.Proxy.newProxyInstance(
                    getClass().getClassLoader(), new Class<?>[] {io.caravan.http.ApiRequest.class},
                    (proxy, m, args) -> m.getName().equals("pathParam") && "tag".equals(args[0]) ? tag
                            : m.invoke(inner, args));
            return handler.handle(r).toCompletableFuture().get(5, TimeUnit.SECONDS);
        } catch (CaravanException e) {
            return e;
        } catch (ExecutionException | CompletionException e) {
            return e.getCause();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private Map<String, Object> tagOf(long version) {
        return state.store().snapshot().get(NomadTables.JOB_VERSIONS, "default\0web\0" + String.format("%020d",
                version)).orElseThrow().versionTag();
    }

    @Test
    void versionTagsAreUniquePerJobAndComeOff() {
        assertTrue(tagCall("PUT", "golden", "{\"Version\": 0, \"Description\": \"known good\"}")
                instanceof ApiResponse);
        assertEquals("golden", tagOf(0).get("Name"));
        assertEquals("known good", tagOf(0).get("Description"));
        assertTrue(((Number) tagOf(0).get("TaggedTime")).longValue() > 0);
        assertEquals(null, state.store().snapshot().get(NomadTables.JOBS, "default\0web").orElseThrow()
                .versionTag(), "the current job is version 1, untagged");

        error(tagCall("PUT", "golden", "{\"Version\": 1}"), 400,
                "tag \"golden\" already exists on a different version of job \"web\"");
        assertTrue(tagCall("PUT", "golden", "{\"Version\": 0, \"Description\": \"still\"}")
                instanceof ApiResponse, "re-tagging the same version changes its description");
        assertEquals("still", tagOf(0).get("Description"));
        error(tagCall("PUT", "other", "{\"Version\": 9}"), 404, "job \"web\" at version 9 not found");
        error(tagCall("PUT", "other", "{\"Name\": \"else\", \"Version\": 1}"), 400,
                "Name: tag name does not match the path's \"other\"");

        // No version: the latest, mirrored on the job.
        assertTrue(tagCall("POST", "latest", "{}") instanceof ApiResponse);
        assertEquals("latest", tagOf(1).get("Name"));
        assertEquals("latest", state.store().snapshot().get(NomadTables.JOBS, "default\0web").orElseThrow()
                .versionTag().get("Name"));

        // A revert copies the spec, not the tag.
        ok("POST /v1/job/{id}/revert", "web", "{\"JobID\": \"web\", \"JobVersion\": 0}");
        assertEquals(null, tagOf(2));

        assertTrue(tagCall("DELETE", "golden", null) instanceof ApiResponse);
        assertEquals(null, tagOf(0));
        error(tagCall("DELETE", "golden", null), 404, "tag \"golden\" not found on job \"web\"");
    }

    /** {@code GET /v1/deployments} with paging options (the test request's own options have none). */
    private Object listPage(int perPage, String nextToken, boolean reverse) {
        RouteAclTest.Request inner = new RouteAclTest.Request("GET", "/v1/deployments", null, Map.of(), null,
                Identity.UNRESTRICTED);
        io.caravan.http.QueryOptions o = new io.caravan.http.QueryOptions("global", "default", 0,
                java.time.Duration.ZERO, false, "", "", perPage, nextToken, reverse);
        io.caravan.http.ApiRequest r = (io.caravan.http.ApiRequest) java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {io.caravan.http.ApiRequest.class},
                (proxy, m, args) -> m.getName().equals("options") ? o : m.invoke(inner, args));
        try {
            return routes.get("GET /v1/deployments").handle(r).toCompletableFuture().get(5, TimeUnit.SECONDS);
        } catch (CaravanException e) {
            return e;
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void deploymentsListInCreationOrderAndPageWithNextToken() {
        // Created after d1, sorting before it by ID: Nomad orders by create index.
        Job job = state.store().snapshot().get(NomadTables.JOBS, "default\0web").orElseThrow();
        write(new Command.PlanApply("e1", job, List.of(), List.of(), 2000,
                DeploymentApplyTest.deployment("0later", job, 2, 0), List.of()));
        long created = state.store().snapshot().get(NomadTables.DEPLOYMENTS, "0later").orElseThrow().createIndex();
        assertEquals(List.of("d1", "0later"), ids(ok("GET /v1/deployments", null, null)));

        ApiResponse first = (ApiResponse) listPage(1, "", false);
        assertEquals(List.of("d1"), ids(NomadJson.mapper().valueToTree(first.body())));
        assertEquals(created + ".0later", first.meta().nextToken());
        ApiResponse second = (ApiResponse) listPage(1, created + ".0later", false);
        assertEquals(List.of("0later"), ids(NomadJson.mapper().valueToTree(second.body())));
        assertEquals(null, second.meta().nextToken());
        assertEquals(List.of("0later", "d1"), ids(NomadJson.mapper().valueToTree(((ApiResponse) listPage(0, "",
                true)).body())), "reverse");
        error(listPage(1, "nonsense", false), 400, "next_token: expected <create index>.<ID>, got \"nonsense\"");
    }

    @Test
    void scaleStatusTakesPlacedAndHealthFromTheLatestDeployment() {
        Job job = state.store().snapshot().get(NomadTables.JOBS, "default\0web").orElseThrow();
        write(new Command.DeploymentAllocHealth("d1", List.of("a0"), List.of("a1"), Evaluation.forJob("h1", job,
                Evaluation.TRIGGER_DEPLOYMENT_WATCHER, 0).toBuilder().deploymentId("d1").build(), 3000));
        JobRoutes.ScaleStatus withDeployment = JobRoutes.ScaleStatus.of(job,
                state.store().snapshot().byIndex(NomadTables.ALLOCS, "job", "default\0web").toList(), null, d1());
        JobRoutes.GroupScale g = withDeployment.taskGroups().get("web");
        assertEquals(2, g.placed());
        assertEquals(1, g.healthy());
        assertEquals(1, g.unhealthy());
        JobRoutes.GroupScale none = JobRoutes.ScaleStatus.of(job, List.of(), null, null).taskGroups().get("web");
        assertEquals(0, none.healthy(), "no deployment: no health");
        assertEquals(0, none.placed());
    }
}
