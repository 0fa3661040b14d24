package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.annotation.Annotation;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.Identity;
import io.caravan.api.json.NomadJson;
import io.caravan.consensus.Applied;
import io.caravan.consensus.Replicator;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiRequest;
import io.caravan.http.ApiResponse;
import io.caravan.http.AsyncHandler;
import io.caravan.http.QueryOptions;
import io.caravan.http.RouteTable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The job limits at every entry point that takes a job: register, plan, validate and scale answer 400 naming the
 * field (validate: 200 listing it, as Nomad), and nothing reaches the Raft log.
 */
class JobLimitsTest {
    private final ServerState state = new ServerState();
    private final AtomicLong writes = new AtomicLong();
    private final JobRoutes routes;

    JobLimitsTest() {
        routes = new JobRoutes(state, new ClusterRoutesTest.Agent(true, false), writes(state, writes), config(100));
    }

    /** Raft writes applied at once to {@code state}, each counted. */
    static RaftWrites writes(ServerState state, AtomicLong writes) {
        RaftWrites raft = new RaftWrites();
        raft.bindReplicator(new Replicator() {
            public CompletionStage<Applied> submit(byte[] command) {
                long index = writes.incrementAndGet();
                return CompletableFuture.completedFuture(new Applied(index, state.apply(index, 1000, command)));
            }
            public boolean isLeader() { return true; }
            public Optional<String> leaderAddress() { return Optional.empty(); }
            public long lastAppliedIndex() { return writes.get(); }
            public List<String> peers() { return List.of(); }
        });
        return raft;
    }

    @AfterEach
    void stop() {
        state.deactivate();
    }

    // ---- registration ------------------------------------------------------------------------------------------

    @Test
    void aCountAboveJobMaxCountIsRefusedWithTheFieldAndNothingIsWritten() throws Exception {
        ObjectNode job = job("web", 2_000_000_000L);
        CaravanException e = refused("PUT", "/v1/jobs", "web", wrap(job));
        assertEquals(ErrorCode.BAD_REQUEST, e.code());
        assertEquals("2 errors in the job:\n* TaskGroups[0].Count: task group \"web\" count 2000000000 exceeds the "
                + "maximum of 100 (server job_max_count)\n* TaskGroups: the job asks for 2000000000 allocations in "
                + "all, more than the maximum of 100 (server job_max_count)", e.getMessage());
        refused("POST", "/v1/job/{id}", "web", wrap(job));
        refused("PUT", "/v1/job/{id}/plan", "web", wrap(job));
        assertEquals(0, writes.get());
    }

    @Test
    void aCountBeyondAnIntDoesNotWrapAround() throws Exception {
        CaravanException e = refused("PUT", "/v1/jobs", "web", wrap(job("web", 4_294_967_297L)));
        assertTrue(e.getMessage().contains("count 4294967297 exceeds the maximum of 100"), e.getMessage());
        assertEquals(0, writes.get());
    }

    @Test
    void theSumOfTheGroupsCountsIsBoundedToo() throws Exception {
        ObjectNode job = job("web", 60);
        ObjectNode second = ((ObjectNode) job.withArray("TaskGroups").get(0)).deepCopy().put("Name", "db");
        job.withArray("TaskGroups").add(second);
        CaravanException e = refused("PUT", "/v1/jobs", "web", wrap(job));
        assertEquals("1 error in the job:\n* TaskGroups: the job asks for 120 allocations in all, more than the "
                + "maximum of 100 (server job_max_count)", e.getMessage());
        assertEquals(0, writes.get());
    }

    @Test
    void sizesAndRangesAreBounded() throws Exception {
        ObjectNode job = job("web", 1).put("Priority", 101);
        ObjectNode group = (ObjectNode) job.withArray("TaskGroups").get(0);
        group.putObject("Scaling").put("Min", 5).put("Max", 1_000_000);
        ObjectNode task = (ObjectNode) group.withArray("Tasks").get(0);
        task.putObject("Resources").put("CPU", -5).put("MemoryMB", 1L << 40).put("DiskMB", -1)
                .putArray("Networks").addObject().putArray("ReservedPorts").addObject().put("Label", "http")
                .put("Value", 70000);
        ObjectNode env = task.putObject("Env");
        for (int i = 0; i <= JobLimits.MAX_ENTRIES; i++) {
            env.put("K" + i, "v");
        }
        ArrayNode constraints = task.putArray("Constraints");
        for (int i = 0; i <= JobLimits.MAX_BLOCKS; i++) {
            constraints.addObject().put("LTarget", "${attr.kernel.name}").put("RTarget", "linux").put("Operand", "=");
        }
        String message = refused("PUT", "/v1/jobs", "web", wrap(job)).getMessage();
        for (String expected : List.of(
                "Priority: job priority must be between 1 and 100 (server job_max_priority), not 101",
                "TaskGroups[0].Scaling.Max: scaling max must be between 0 and 100 (server job_max_count), not 1000000",
                "TaskGroups[0].Count: task group count 1 is less than the scaling policy's minimum 5",
                "TaskGroups[0].Tasks[0].Constraints: 101 entries exceed the maximum of 100",
                "TaskGroups[0].Tasks[0].Env: 1001 entries exceed the maximum of 1000",
                "TaskGroups[0].Tasks[0].Resources.MemoryMB: memory must be between 10 and 16777216, not 1099511627776",
                "TaskGroups[0].Tasks[0].Resources.CPU: cpu must be between 1 and 10000000, not -5",
                "TaskGroups[0].Tasks[0].Resources.DiskMB: disk must be between 0 and 1073741824, not -1",
                "TaskGroups[0].Tasks[0].Resources.Networks[0].ReservedPorts[0].Value: port must be between 0 and "
                        + "65535, not 70000")) {
            assertTrue(message.contains("\n* " + expected), "missing \"" + expected + "\" in:\n" + message);
        }
        assertTrue(message.startsWith("9 errors in the job:"), message);
        assertEquals(0, writes.get());
    }

    @Test
    void tooManyGroupsIsOneProblemNotOnePerGroup() throws Exception {
        ObjectNode job = job("web", 1);
        ArrayNode groups = job.withArray("TaskGroups");
        for (int i = 1; i <= JobLimits.MAX_TASK_GROUPS; i++) {
            groups.add(((ObjectNode) groups.get(0)).deepCopy().put("Name", "g" + i));
        }
        assertEquals("1 error in the job:\n* TaskGroups: 101 task groups exceed the maximum of 100",
                refused("PUT", "/v1/jobs", "web", wrap(job)).getMessage());
    }

    @Test
    void validateListsTheProblemsWithoutWriting() throws Exception {
        ApiResponse response = answer("PUT", "/v1/validate/job", "web", wrap(job("web", 2_000_000_000L)));
        JsonNode body = NomadJson.mapper().valueToTree(response.body());
        assertEquals(200, response.status());
        assertTrue(body.get("ValidationErrors").get(0).asText().contains("exceeds the maximum of 100"), body.toString());
        assertTrue(body.get("Error").asText().startsWith("2 errors in the job:"), body.toString());
        assertEquals(0, writes.get());
    }

    @Test
    void jobDefaultPriorityAndJobMaxPriorityComeFromTheServerBlock() throws Exception {
        JobRoutes custom = new JobRoutes(state, new ClusterRoutesTest.Agent(true, false), new RaftWrites(), config(100, 200, 150));
        JsonNode parsed = NomadJson.mapper().valueToTree(call(custom, "PUT", "/v1/validate/job", "web",
                wrap(job("web", 1).put("Priority", 180))).body());
        assertEquals(0, parsed.get("ValidationErrors").size(), parsed.toString());
        ObjectNode noPriority = job("web", 1);
        Jobs.defaults(noPriority, "global", JobLimits.of(config(100, 200, 150)));
        assertEquals(150, noPriority.get("Priority").asInt());
    }

    // ---- scaling -----------------------------------------------------------------------------------------------

    @Test
    void scalingBeyondJobMaxCountIsRefusedFastAndTheJobKeepsItsCount() throws Exception {
        answer("PUT", "/v1/jobs", "web", wrap(job("web", 2)));
        long written = writes.get();
        assertEquals(1, written);

        for (long count : new long[] {2_000_000_000L, 4_294_967_297L, 101}) {
            long started = System.nanoTime();
            CaravanException e = refused("PUT", "/v1/job/{id}/scale", "web", NomadJson.mapper().createObjectNode()
                    .put("Count", count).set("Target", NomadJson.mapper().createObjectNode().put("Group", "web")));
            assertEquals(ErrorCode.BAD_REQUEST, e.code());
            assertEquals("1 error in the job:\n* Count: task group \"web\" count " + count + " exceeds the maximum of "
                    + "100 (server job_max_count)", e.getMessage());
            assertTrue(System.nanoTime() - started < TimeUnit.SECONDS.toNanos(1));
        }
        assertEquals(written, writes.get());
        assertEquals(2, state.store().snapshot().get(NomadTables.JOBS, NomadTables.key("default", "web")).orElseThrow()
                .taskGroups().get(0).count());
    }

    @Test
    void scalingWithinTheLimitsIsWritten() throws Exception {
        ObjectNode job = job("web", 2);
        ObjectNode task = (ObjectNode) ((ObjectNode) job.withArray("TaskGroups").get(0)).withArray("Tasks").get(0);
        task.putObject("Resources").put("CPU", 250).put("MemoryMB", 128).putArray("Networks").addObject()
                .putArray("DynamicPorts").addObject().put("Label", "http").put("To", 8080);
        answer("PUT", "/v1/jobs", "web", wrap(job));
        ApiResponse response = answer("PUT", "/v1/job/{id}/scale", "web", NomadJson.mapper().createObjectNode()
                .put("Count", 100).set("Target", NomadJson.mapper().createObjectNode().put("Group", "web")));
        assertEquals(200, response.status());
        assertEquals(3, writes.get(), "the job, then its scaling event");
        assertEquals(100, state.store().snapshot().get(NomadTables.JOBS, NomadTables.key("default", "web"))
                .orElseThrow().taskGroups().get(0).count());
    }

    @Test
    void scalingOutsideTheGroupsScalingPolicyIsRefused() throws Exception {
        ObjectNode job = job("web", 2);
        ((ObjectNode) job.withArray("TaskGroups").get(0)).putObject("Scaling").put("Min", 1).put("Max", 5);
        answer("PUT", "/v1/jobs", "web", wrap(job));
        CaravanException e = refused("PUT", "/v1/job/{id}/scale", "web", NomadJson.mapper().createObjectNode()
                .put("Count", 6).set("Target", NomadJson.mapper().createObjectNode().put("Group", "web")));
        assertEquals("group count was greater than scaling policy maximum: 6 > 5", e.getMessage());
        assertEquals(ErrorCode.BAD_REQUEST, e.code());
        assertEquals(1, writes.get());
    }

    // ---- fixtures ----------------------------------------------------------------------------------------------

    static ObjectNode job(String id, long count) {
        ObjectNode job = NomadJson.mapper().createObjectNode().put("ID", id).put("Type", "service");
        ObjectNode group = job.putArray("TaskGroups").addObject().put("Name", "web").put("Count", count);
        group.putArray("Tasks").addObject().put("Name", "app").put("Driver", "raw_exec");
        return job;
    }

    static ObjectNode wrap(ObjectNode job) {
        ObjectNode body = NomadJson.mapper().createObjectNode();
        body.set("Job", job);
        return body;
    }

    static ServerSchedulingConfig config(int maxCount) {
        return config(maxCount, 100, 50);
    }

    static ServerSchedulingConfig config(int maxCount, int maxPriority, int defaultPriority) {
        return new ServerSchedulingConfig() {
            public Class<? extends Annotation> annotationType() { return ServerSchedulingConfig.class; }
            public int num_schedulers() { return 1; }
            public String[] enabled_schedulers() { return new String[0]; }
            public String heartbeat_grace() { return "10s"; }
            public String min_heartbeat_ttl() { return "10s"; }
            public double max_heartbeats_per_second() { return 50; }
            public String failover_heartbeat_ttl() { return "5m"; }
            public int job_max_count() { return maxCount; }
            public int job_max_priority() { return maxPriority; }
            public int job_default_priority() { return defaultPriority; }
            public String job_max_source_size() { return ""; }
            public int job_tracked_versions() { return 0; }
        };
    }

    record Request(String method, String path, String id, JsonNode json) implements ApiRequest {
        public String pathParam(String name) { return name.equals("id") ? id : null; }
        public Optional<String> query(String name) { return Optional.empty(); }
        public List<String> queryAll(String name) { return List.of(); }
        public Optional<String> header(String name) { return Optional.empty(); }
        public Optional<String> token() { return Optional.empty(); }
        public Identity identity() { return Identity.UNRESTRICTED; }
        public QueryOptions options() {
            return new QueryOptions("global", "default", 0, Duration.ZERO, false, "", "", 0, "", false);
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

    private ApiResponse answer(String method, String path, String id, JsonNode body) throws Exception {
        return call(routes, method, path, id, body);
    }

    private static ApiResponse call(JobRoutes component, String method, String path, String id, JsonNode body)
            throws Exception {
        Map<String, AsyncHandler> table = new java.util.HashMap<>();
        component.register(new RouteTable() {
            public RouteTable routeAsync(String m, String pattern, ApiEndpoint endpoint, AsyncHandler handler) {
                table.put(m + " " + pattern, handler);
                return this;
            }
        });
        AsyncHandler handler = table.get(method + " " + path);
        assertTrue(handler != null, "no route " + method + " " + path);
        try {
            return handler.handle(new Request(method, path, id, body)).toCompletableFuture().get(5, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    private CaravanException refused(String method, String path, String id, JsonNode body) {
        Exception e = assertThrows(Exception.class, () -> answer(method, path, id, body));
        if (e instanceof CompletionException && e.getCause() instanceof CaravanException c) {
            return c;
        }
        return assertInstanceOf(CaravanException.class, e);
    }
}
