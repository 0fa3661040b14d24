package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.api.CaravanException;
import io.caravan.api.acl.Identity;
import io.caravan.api.json.NomadJson;
import io.caravan.api.model.Evaluation;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiRequest;
import io.caravan.http.ApiResponse;
import io.caravan.http.ApiRoutes;
import io.caravan.http.AsyncHandler;
import io.caravan.http.QueryOptions;
import io.caravan.http.RouteTable;
import io.caravan.scheduler.Plan;
import io.caravan.scheduler.PlanResult;
import io.caravan.scheduler.Planner;
import io.caravan.scheduler.SchedulerState;
import io.caravan.scheduler.Schedulers;
import io.caravan.state.StateSnapshot;

/**
 * Server routes called as the API servlet calls them (handler by method and pattern), over a state whose Raft writes
 * apply at once, with a scheduler pass the test runs when it wants one (as the leader's workers would).
 */
final class RoutesHarness implements AutoCloseable {
    final ServerState state = new ServerState();
    final AtomicLong writes = new AtomicLong();
    final RaftWrites raft = JobLimitsTest.writes(state, writes);
    private final Map<String, Declared> routes = new HashMap<>();
    private final Clock clock = Clock.systemUTC();
    private final PlanApplier planApplier = new PlanApplier(state.store(), raft, clock);

    record Declared(ApiEndpoint endpoint, AsyncHandler handler) {}

    RoutesHarness() {
        add(new JobRoutes(state, new ClusterRoutesTest.Agent(true, false), raft, JobLimitsTest.config(100)));
    }

    RoutesHarness add(ApiRoutes component) {
        component.register(new RouteTable() {
            public RouteTable routeAsync(String m, String pattern, ApiEndpoint endpoint, AsyncHandler handler) {
                routes.put(m + " " + pattern, new Declared(endpoint, handler));
                return this;
            }
        });
        return this;
    }

    ApiEndpoint endpoint(String method, String pattern) {
        Declared d = routes.get(method + " " + pattern);
        assertTrue(d != null, "no route " + method + " " + pattern);
        return d.endpoint();
    }

    /** A call as the management token, with {@code params} the path parameters and query ({@code ?name}). */
    ApiResponse call(String method, String pattern, Map<String, String> params, JsonNode body) throws Exception {
        return call(method, pattern, params, body, Identity.UNRESTRICTED);
    }

    ApiResponse call(String method, String pattern, Map<String, String> params, JsonNode body, Identity identity)
            throws Exception {
        Declared d = routes.get(method + " " + pattern);
        assertTrue(d != null, "no route " + method + " " + pattern);
        try {
            return d.handler().handle(new Request(method, pattern, params, body, identity)).toCompletableFuture()
                    .get(5, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    CaravanException refused(String method, String pattern, Map<String, String> params, JsonNode body) {
        return refused(method, pattern, params, body, Identity.UNRESTRICTED);
    }

    CaravanException refused(String method, String pattern, Map<String, String> params, JsonNode body,
                             Identity identity) {
        Exception e = assertThrows(Exception.class, () -> call(method, pattern, params, body, identity));
        if (e instanceof CompletionException && e.getCause() instanceof CaravanException c) {
            return c;
        }
        return assertInstanceOf(CaravanException.class, e);
    }

    /** Runs every pending evaluation, oldest first, until none is left. */
    void schedule() throws Exception {
        for (int pass = 0; pass < 10; pass++) {
            List<Evaluation> due = state.store().snapshot().all(NomadTables.EVALS)
                    .filter(e -> Evaluation.STATUS_PENDING.equals(e.status()))
                    .sorted(Comparator.comparingLong(Evaluation::createIndex)).toList();
            if (due.isEmpty()) {
                return;
            }
            for (Evaluation eval : due) {
                Schedulers.create(eval.type(), new SnapshotSchedulerState(state.store().snapshot()), planner(),
                        clock).process(eval);
            }
        }
    }

    private Planner planner() {
        return new Planner() {
            public PlanResult submitPlan(Plan plan) throws io.caravan.scheduler.SchedulerException {
                try {
                    return planApplier.submit(plan).get();
                } catch (Exception e) {
                    throw new io.caravan.scheduler.SchedulerException(e.getMessage(), e);
                }
            }
            public SchedulerState refreshState(long minIndex) {
                return new SnapshotSchedulerState(state.store().snapshot());
            }
            public void updateEval(Evaluation eval) {
                raft.submitAndWait(new Command.EvalUpsert(List.of(eval)));
            }
            public void createEval(Evaluation eval) {
                raft.submitAndWait(new Command.EvalUpsert(List.of(eval)));
            }
        };
    }

    StateSnapshot snapshot() {
        return state.store().snapshot();
    }

    @Override
    public void close() {
        planApplier.close();
        state.deactivate();
    }

    static JsonNode json(String text) {
        try {
            return NomadJson.mapper().readTree(text);
        } catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** Path parameters by name; query parameters as {@code ?name}. */
    record Request(String method, String path, Map<String, String> params, JsonNode json, Identity identity)
            implements ApiRequest {
        public String pathParam(String name) {
            // As the servlet's: asking for a parameter the route does not have is a bug.
            if (!path.contains("{" + name + "}")) {
                throw new IllegalArgumentException("route has no parameter " + name);
            }
            return params.get(name);
        }
        public Optional<String> query(String name) { return Optional.ofNullable(params.get("?" + name)); }
        public List<String> queryAll(String name) { return query(name).map(List::of).orElse(List.of()); }
        public Optional<String> header(String name) { return Optional.empty(); }
        public Optional<String> token() { return Optional.empty(); }
        public QueryOptions options() {
            return new QueryOptions("global", query("namespace").orElse("default"), 0, Duration.ZERO,
                    query("stale").isPresent(),
                    query("prefix").orElse(""), query("filter").orElse(""),
                    query("per_page").map(Integer::parseInt).orElse(0), query("next_token").orElse(""),
                    query("reverse").map(Boolean::parseBoolean).orElse(false));
        }
        public byte[] rawBody() {
            return json == null ? new byte[0] : json.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
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
}
