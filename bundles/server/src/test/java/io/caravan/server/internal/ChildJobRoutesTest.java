package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.CaravanException;
import io.caravan.api.json.NomadJson;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.api.model.JobListStub;
import io.caravan.api.model.JobSummary;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiResponse;
import io.caravan.http.AsyncHandler;
import io.caravan.http.RouteTable;
import io.caravan.state.StateSnapshot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Registering parents, dispatching parameterized jobs and forcing periodic ones, through the HTTP routes. */
class ChildJobRoutesTest {
    private final ServerState state = new ServerState();
    private final AtomicLong writes = new AtomicLong();
    private final Map<String, AsyncHandler> routes = new HashMap<>();

    ChildJobRoutesTest() {
        RaftWrites raft = JobLimitsTest.writes(state, writes);
        RouteTable table = new RouteTable() {
            public RouteTable routeAsync(String method, String pattern, ApiEndpoint endpoint, AsyncHandler handler) {
                routes.put(method + " " + pattern, handler);
                return this;
            }
        };
        new JobRoutes(state, new ClusterRoutesTest.Agent(true, false), raft, JobLimitsTest.config(100))
                .register(table);
        new ChildJobRoutes(state, raft).register(table);
    }

    @AfterEach
    void stop() {
        state.deactivate();
    }

    private ApiResponse call(String route, String id, JsonNode body) throws Exception {
        AsyncHandler handler = routes.get(route);
        assertTrue(handler != null, "no route " + route);
        try {
            return handler.handle(new JobLimitsTest.Request(route.substring(0, route.indexOf(' ')),
                    route.substring(route.indexOf(' ') + 1), id, body)).toCompletableFuture().get(5, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    private CaravanException refused(String route, String id, JsonNode body) {
        Exception e = assertThrows(Exception.class, () -> call(route, id, body));
        if (e instanceof CompletionException && e.getCause() instanceof CaravanException c) {
            return c;
        }
        if (e instanceof CaravanException c) {
            return c;
        }
        throw new AssertionError("not a CaravanException", e);
    }

    private static JsonNode json(Object body) {
        return NomadJson.mapper().valueToTree(body);
    }

    static ObjectNode parameterized(String id, String payload, List<String> required, List<String> optional) {
        ObjectNode job = JobLimitsTest.job(id, 1).put("Type", "batch");
        ObjectNode p = job.putObject("ParameterizedJob").put("Payload", payload);
        required.forEach(p.putArray("MetaRequired")::add);
        optional.forEach(p.putArray("MetaOptional")::add);
        ((ObjectNode) job.withArray("TaskGroups").get(0).withArray("Tasks").get(0)).putObject("DispatchPayload")
                .put("File", "input.txt");
        job.putObject("Meta").put("owner", "ops");
        return job;
    }

    private ObjectNode dispatchBody(String payload, Map<String, String> meta) {
        ObjectNode body = NomadJson.mapper().createObjectNode();
        if (payload != null) {
            body.put("Payload", Base64.getEncoder().encodeToString(payload.getBytes(StandardCharsets.UTF_8)));
        }
        ObjectNode m = body.putObject("Meta");
        meta.forEach(m::put);
        return body;
    }

    @Test
    void aParentsRegistrationHasNoEvaluation() throws Exception {
        JsonNode answer = json(call("PUT /v1/jobs", null, JobLimitsTest.wrap(parameterized("render", "optional",
                List.of(), List.of()))).body());
        assertEquals("", answer.path("EvalID").asText());
        assertEquals(0, answer.path("EvalCreateIndex").asLong());
        assertEquals(0, state.store().snapshot().count(NomadTables.EVALS));
        assertEquals(Job.STATUS_RUNNING, state.store().snapshot().get(NomadTables.JOBS,
                NomadTables.key("default", "render")).orElseThrow().status());
    }

    @Test
    void anInvalidCronOrAServiceParentIsA400NamingTheField() {
        ObjectNode job = PeriodicDispatcherTestJobs.periodic("report", "61 * * * *");
        CaravanException e = refused("PUT /v1/jobs", null, JobLimitsTest.wrap(job));
        assertEquals(400, e.code().httpStatus());
        assertTrue(e.getMessage().contains("Periodic.Spec: invalid cron spec \"61 * * * *\": 61 is out of range "
                + "0-59 in the minute field"), e.getMessage());

        ObjectNode zone = PeriodicDispatcherTestJobs.periodic("report", "* * * * *");
        ((ObjectNode) zone.get("Periodic")).put("TimeZone", "Mars/Olympus");
        assertTrue(refused("PUT /v1/jobs", null, JobLimitsTest.wrap(zone)).getMessage()
                .contains("Periodic.TimeZone: invalid time zone \"Mars/Olympus\""));

        ObjectNode service = parameterized("svc", "optional", List.of(), List.of()).put("Type", "service");
        assertTrue(refused("PUT /v1/jobs", null, JobLimitsTest.wrap(service)).getMessage()
                .contains("ParameterizedJob: parameterized jobs can only be \"batch\" or \"sysbatch\" jobs"));
        assertEquals(0, writes.get(), "nothing written");
    }

    @Test
    void aDispatchCreatesTheChildWithItsPayloadMetaAndEvaluation() throws Exception {
        call("PUT /v1/jobs", null, JobLimitsTest.wrap(parameterized("render", "required", List.of("frame"),
                List.of("quality"))));
        JsonNode answer = json(call("PUT /v1/job/{id}/dispatch", "render",
                dispatchBody("hello payload", Map.of("frame", "42"))).body());
        String childId = answer.path("DispatchedJobID").asText();
        assertTrue(childId.matches("render/dispatch-\\d+-[0-9a-f]{8}"), childId);
        StateSnapshot s = state.store().snapshot();
        Job child = s.get(NomadTables.JOBS, NomadTables.key("default", childId)).orElseThrow();
        assertTrue(child.dispatched());
        assertEquals("render", child.parentId());
        assertEquals(Map.of("owner", "ops", "frame", "42"), child.meta());
        byte[] framed = new byte[2 + 13];   // snappy: the length (13), one literal of 13 bytes, the bytes
        framed[0] = 13;
        framed[1] = 12 << 2;
        System.arraycopy("hello payload".getBytes(StandardCharsets.UTF_8), 0, framed, 2, 13);
        assertArrayEquals(framed, child.decodePayload(), "stored snappy-framed, as Nomad stores it");
        assertEquals(Base64.getEncoder().encodeToString("hello payload".getBytes(StandardCharsets.UTF_8)),
                json(call("GET /v1/job/{id}", childId, null).body()).path("Payload").asText(),
                "read back as dispatched");
        Evaluation eval = s.get(NomadTables.EVALS, answer.path("EvalID").asText()).orElseThrow();
        assertEquals(childId, eval.jobId());
        assertEquals(answer.path("Index").asLong(), answer.path("JobCreateIndex").asLong());
        assertEquals(Job.STATUS_PENDING, child.status(), "a dispatched child is scheduled, not a parent");
        assertFalse(JobListStub.of(child, null).parameterizedJob(), "a dispatched child is not parameterized");
        assertEquals(new JobSummary.Children(1, 0, 0), s.get(NomadTables.JOB_SUMMARIES,
                NomadTables.key("default", "render")).orElseThrow().children());

        ObjectNode prefixed = dispatchBody("x", Map.of("frame", "1")).put("IdPrefixTemplate", "nightly");
        assertTrue(json(call("PUT /v1/job/{id}/dispatch", "render", prefixed).body()).path("DispatchedJobID")
                .asText().matches("render/dispatch-nightly-\\d+-[0-9a-f]{8}"));
    }

    @Test
    void aSecondDispatchWithTheSameIdempotencyTokenAnswersTheFirstChild() throws Exception {
        call("PUT /v1/jobs", null, JobLimitsTest.wrap(parameterized("render", "optional", List.of(), List.of())));
        AsyncHandler dispatch = routes.get("PUT /v1/job/{id}/dispatch");
        Map<String, String> token = Map.of("idempotency_token", "once");
        JsonNode first = json(dispatch.handle(new RouteAclTest.Request("PUT", "/", "render", token,
                dispatchBody("x", Map.of()), io.caravan.api.acl.Identity.UNRESTRICTED)).toCompletableFuture()
                .get(5, TimeUnit.SECONDS).body());
        long written = writes.get();
        JsonNode second = json(dispatch.handle(new RouteAclTest.Request("PUT", "/", "render", token,
                dispatchBody("x", Map.of()), io.caravan.api.acl.Identity.UNRESTRICTED)).toCompletableFuture()
                .get(5, TimeUnit.SECONDS).body());
        assertEquals(first.path("DispatchedJobID").asText(), second.path("DispatchedJobID").asText());
        assertEquals("", second.path("EvalID").asText());
        assertEquals(written, writes.get(), "nothing written the second time");
        assertEquals("once", state.store().snapshot().get(NomadTables.JOBS, NomadTables.key("default",
                first.path("DispatchedJobID").asText())).orElseThrow().dispatchIdempotencyToken());
    }

    @Test
    void aDispatchIsCheckedAgainstTheParentsRules() throws Exception {
        call("PUT /v1/jobs", null, JobLimitsTest.wrap(parameterized("render", "required", List.of("frame"),
                List.of("quality"))));
        call("PUT /v1/jobs", null, JobLimitsTest.wrap(parameterized("quiet", "forbidden", List.of(), List.of())));
        call("PUT /v1/jobs", null, JobLimitsTest.wrap(JobLimitsTest.job("plain", 1)));
        long written = writes.get();
        assertEquals("Payload: Payload is not provided but required by parameterized job",
                refused("PUT /v1/job/{id}/dispatch", "render", dispatchBody(null, Map.of("frame", "1"))).getMessage());
        assertEquals("Payload: Payload provided but forbidden by parameterized job",
                refused("PUT /v1/job/{id}/dispatch", "quiet", dispatchBody("x", Map.of())).getMessage());
        assertEquals("Payload: Payload exceeds maximum size; 16385 > 16384", refused("PUT /v1/job/{id}/dispatch",
                "render", dispatchBody("x".repeat(16 * 1024 + 1), Map.of("frame", "1"))).getMessage());
        assertEquals("Meta: Dispatch did not provide required meta keys: [frame]",
                refused("PUT /v1/job/{id}/dispatch", "render", dispatchBody("x", Map.of("quality", "hi")))
                        .getMessage());
        assertEquals("Meta: Dispatch request included unpermitted metadata keys: [color]",
                refused("PUT /v1/job/{id}/dispatch", "render", dispatchBody("x", Map.of("frame", "1",
                        "color", "red"))).getMessage());
        CaravanException notParameterized = refused("PUT /v1/job/{id}/dispatch", "plain", dispatchBody(null,
                Map.of()));
        assertEquals(400, notParameterized.code().httpStatus());
        assertEquals("Specified job \"plain\" is not a parameterized job", notParameterized.getMessage());
        assertEquals(404, refused("PUT /v1/job/{id}/dispatch", "nope", dispatchBody(null, Map.of())).code()
                .httpStatus());
        assertEquals(written, writes.get(), "nothing written");
    }

    @Test
    void periodicForceLaunchesAChildNowAndRefusesANonPeriodicJob() throws Exception {
        call("PUT /v1/jobs", null, JobLimitsTest.wrap(PeriodicDispatcherTestJobs.periodic("report", "0 0 1 1 *")));
        call("PUT /v1/jobs", null, JobLimitsTest.wrap(JobLimitsTest.job("plain", 1)));
        JsonNode answer = json(call("PUT /v1/job/{id}/periodic/force", "report",
                NomadJson.mapper().createObjectNode()).body());
        StateSnapshot s = state.store().snapshot();
        Evaluation eval = s.get(NomadTables.EVALS, answer.path("EvalID").asText()).orElseThrow();
        assertTrue(eval.jobId().matches("report/periodic-\\d+"), eval.jobId());
        assertEquals(Evaluation.TRIGGER_PERIODIC_JOB, eval.triggeredBy());
        assertEquals(answer.path("Index").asLong(), answer.path("EvalCreateIndex").asLong());
        assertEquals(1, PeriodicJobs.children(s, "default", "report").count());

        CaravanException e = refused("PUT /v1/job/{id}/periodic/force", "plain", NomadJson.mapper()
                .createObjectNode());
        assertEquals(400, e.code().httpStatus());
        assertEquals("can't force launch non-periodic job \"plain\"", e.getMessage());
    }

    @Test
    void aPlanOfAPeriodicJobTellsItsNextLaunch() throws Exception {
        JsonNode plan = json(call("PUT /v1/job/{id}/plan", "report", JobLimitsTest.wrap(
                PeriodicDispatcherTestJobs.periodic("report", "0 0 1 1 *"))).body());
        java.time.Instant next = java.time.Instant.parse(plan.path("NextPeriodicLaunch").asText());
        assertTrue(next.isAfter(java.time.Instant.now()), next.toString());
        assertEquals(java.time.ZonedDateTime.ofInstant(next, java.time.ZoneOffset.UTC).getDayOfYear(), 1);
        JsonNode plain = json(call("PUT /v1/job/{id}/plan", "plain", JobLimitsTest.wrap(JobLimitsTest.job("plain", 1)))
                .body());
        assertEquals("0001-01-01T00:00:00Z", plain.path("NextPeriodicLaunch").asText());
        assertEquals(0, writes.get(), "a plan writes nothing");
    }

    /** Periodic job fixtures. */
    static final class PeriodicDispatcherTestJobs {
        static ObjectNode periodic(String id, String cron) {
            ObjectNode job = JobLimitsTest.job(id, 1).put("Type", "batch");
            job.putObject("Periodic").put("Spec", cron);
            return job;
        }
    }
}
