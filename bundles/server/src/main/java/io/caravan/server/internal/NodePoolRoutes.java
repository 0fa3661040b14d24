package io.caravan.server.internal;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.agent.AgentInfo;
import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.Access;
import io.caravan.api.acl.AclRule;
import io.caravan.api.acl.Scope;
import io.caravan.api.model.JobListStub;
import io.caravan.api.model.NodeListStub;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiRequest;
import io.caravan.http.ApiResponse;
import io.caravan.http.ApiRoutes;
import io.caravan.http.Page;
import io.caravan.http.QueryMeta;
import io.caravan.http.QueryOptions;
import io.caravan.http.filter.Filter;
import io.caravan.api.json.NomadJson;
import io.caravan.http.RouteTable;
import io.caravan.state.Indexed;
import io.caravan.state.StateStore;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Reference;

/**
 * Nomad's node pool endpoints ({@link NodePools}), with Nomad's {@code node_pool} rules: reading a pool takes its
 * {@code read}, writing {@code write}, deleting {@code delete}; the list holds the pools the caller may read; a
 * pool's nodes also take {@code node:read}, its jobs only those the caller may list in the query's namespace.
 */
@Component(service = ApiRoutes.class, configurationPid = "io.caravan.server",
        configurationPolicy = ConfigurationPolicy.REQUIRE)
public final class NodePoolRoutes implements ApiRoutes {
    private static final AclRule READ = AclRule.nodePool("read");
    static final ApiEndpoint LIST = ApiEndpoint.of("NodePool.List", AclRule.PUBLIC);
    static final ApiEndpoint GET = pathPool("NodePool.GetNodePool", READ);
    static final ApiEndpoint NODES = pathPool("NodePool.ListNodes", AclRule.allOf(READ,
            AclRule.scope(Scope.NODE, Access.READ)));
    static final ApiEndpoint JOBS = pathPool("NodePool.ListJobs", READ);
    static final ApiEndpoint UPSERT = ApiEndpoint.of("NodePool.UpsertNodePools", AclRule.nodePool("write"))
            .namespacedBy(NodePoolRoutes::poolOfBody).onLeader();
    static final ApiEndpoint UPSERT_PATH = pathPool("NodePool.UpsertNodePools", AclRule.nodePool("write"))
            .onLeader();
    static final ApiEndpoint DELETE = pathPool("NodePool.DeleteNodePools", AclRule.nodePool("delete")).onLeader();

    /** An endpoint whose rule applies to the pool the path names. */
    private static ApiEndpoint pathPool(String name, AclRule rule) {
        return ApiEndpoint.of(name, rule).namespacedBy(r -> r.pathParam("name"));
    }

    /** The pool a body names; read from the raw bytes, which the handler's {@code body()} then reads again. */
    private static String poolOfBody(ApiRequest r) {
        try {
            return io.caravan.api.json.NomadJson.mapper().readTree(r.rawBody()).path("Name").asText(null);
        } catch (java.io.IOException | RuntimeException e) {
            return null; // the handler answers the bad body
        }
    }

    /** What a pool body may carry: its own fields, and the server-set ones a read returned (ignored). */
    private static final Set<String> KNOWN = Set.of("Name", "Description", "Meta", "SchedulerConfiguration",
            "CreateIndex", "ModifyIndex");

    private final StateStore store;
    private final StateReads reads;
    private final RaftWrites writes;
    private final AgentInfo agent;

    @Activate
    public NodePoolRoutes(@Reference ServerState state, @Reference RaftWrites writes, @Reference AgentInfo agent) {
        this.store = state.store();
        this.reads = new StateReads(store, writes);
        this.writes = writes;
        this.agent = agent;
    }

    @Override
    public void register(RouteTable routes) {
        routes.getAsync("/v1/node/pools", LIST, this::list)
                .writeAsync("/v1/node/pools", UPSERT, r -> upsert(r, null))
                .getAsync("/v1/node/pool/{name}", GET, this::get)
                .writeAsync("/v1/node/pool/{name}", UPSERT_PATH, r -> upsert(r, r.pathParam("name")))
                .deleteAsync("/v1/node/pool/{name}", DELETE, this::delete)
                .getAsync("/v1/node/pool/{name}/nodes", NODES, this::nodes)
                .getAsync("/v1/node/pool/{name}/jobs", JOBS, this::jobs);
    }

    /** Nomad's list: {@code prefix}, {@code filter} on the full pools, then pages by name; only readable pools. */
    private CompletionStage<ApiResponse> list(ApiRequest r) {
        QueryOptions o = r.options();
        Filter filter = o.filter().isEmpty() ? null : Filter.parse(o.filter());
        return store.query(o.minIndex(), o.maxWait(), (s, ws) -> {
            ws.table(NodePools.TABLE.name());
            var pools = NodePools.all(s).filter(p -> p.name().startsWith(o.prefix()))
                    .filter(p -> o.nextToken().isEmpty() || p.name().compareTo(o.nextToken()) >= 0).iterator();
            Page<NodePools.NodePool> page = Page.of(pools, p -> r.identity().acl().allowNodePool(p.name(), "read")
                    && (filter == null || filter.matches(NomadJson.mapper().valueToTree(p))),
                    NodePools.NodePool::name, o.perPage());
            return new Indexed<>(page, Math.max(1, s.tableIndex(NodePools.TABLE.name())));
        }).thenApply(result -> ApiResponse.ok(result.value().items(), new QueryMeta(result.index(), true, 0,
                result.value().nextToken())));
    }

    private CompletionStage<ApiResponse> get(ApiRequest r) {
        String name = r.pathParam("name");
        return reads.query(r, (s, ws) -> {
            ws.key(NodePools.TABLE.name(), name);
            var found = NodePools.get(s, name);
            return new Indexed<>(found.orElse(null), found.map(NodePools.NodePool::modifyIndex)
                    .orElse(Math.max(1, s.tableIndex(NodePools.TABLE.name()))));
        }).thenApply(answer -> {
            if (answer.body() == null) {
                throw new CaravanException(ErrorCode.NOT_FOUND, "node pool not found");
            }
            return answer;
        });
    }

    private CompletionStage<ApiResponse> nodes(ApiRequest r) {
        String name = r.pathParam("name");
        requireExists(name);
        return reads.query(r, (s, ws) -> {
            ws.table(NomadTables.NODES.name());
            return new Indexed<>(s.all(NomadTables.NODES).filter(n -> NodePools.holds(name, n.nodePool()))
                    .map(n -> NodeListStub.of(n, false, false)).toList(),
                    Math.max(1, s.tableIndex(NomadTables.NODES.name())));
        });
    }

    /** Jobs of the pool in the query's namespace ({@code *}: all), only where the caller may list jobs. */
    private CompletionStage<ApiResponse> jobs(ApiRequest r) {
        String name = r.pathParam("name");
        requireExists(name);
        var visible = JobRoutes.JOBS_LIST.visibleTo(r);
        return reads.query(r, (s, ws) -> {
            ws.table(NomadTables.JOBS.name());
            return new Indexed<>(s.all(NomadTables.JOBS).filter(visible)
                    .filter(j -> NodePools.ALL.equals(name) || name.equals(j.nodePool()))
                    .map(j -> JobListStub.of(j, s.get(NomadTables.JOB_SUMMARIES,
                            NomadTables.key(j.namespace(), j.id())).orElse(null))).toList(),
                    Math.max(1, s.tableIndex(NomadTables.JOBS.name())));
        });
    }

    private void requireExists(String name) {
        if (NodePools.get(store.snapshot(), name).isEmpty()) {
            throw new CaravanException(ErrorCode.NOT_FOUND, "node pool not found");
        }
    }

    /**
     * Nomad's {@code PUT /v1/node/pools} (the body is the pool) and {@code /v1/node/pool/:name} (a Caravan
     * convenience: the path names the pool, which the body must match).
     */
    private CompletionStage<ApiResponse> upsert(ApiRequest r, String path) {
        JsonNode body = r.body(JsonNode.class);
        if (body == null || !body.isObject()) {
            throw CaravanException.badRequest("Request body must be a node pool object");
        }
        String name = body.path("Name").asText("");
        if (name.isEmpty() && path != null) {
            name = path;
        } else if (path != null && !path.equals(name)) {
            throw CaravanException.badRequest("Node pool name does not match request path");
        }
        for (var field = body.fieldNames(); field.hasNext(); ) {
            String f = field.next();
            if (!KNOWN.contains(f)) {
                throw CaravanException.invalid(f, "not a node pool field");
            }
        }
        Map<String, String> meta = BodyFields.strings(body, "Meta");
        String description = BodyFields.text(body, "Description");
        NodePools.SchedulerConfiguration scheduler = schedulerConfiguration(body.path("SchedulerConfiguration"));
        NodePools.NodePool pool = new NodePools.NodePool(name, description, meta, scheduler, 0, 0);
        if (pool.builtIn()) {
            throw CaravanException.badRequest("modifying node pool \"" + name + "\" is not allowed");
        }
        NodePools.problem(pool).ifPresent(problem -> {
            throw CaravanException.badRequest("invalid node pool: " + problem);
        });
        return writes.submit(new Command.NodePoolUpsert(List.of(pool)))
                .thenApply(result -> new ApiResponse(200, null, QueryMeta.index(result.index())));
    }

    private static NodePools.SchedulerConfiguration schedulerConfiguration(JsonNode sc) {
        if (sc.isMissingNode() || sc.isNull()) {
            return null;
        }
        if (!sc.isObject()) {
            throw CaravanException.invalid("SchedulerConfiguration", "must be an object");
        }
        for (var field = sc.fieldNames(); field.hasNext(); ) {
            String f = field.next();
            if (!Set.of("SchedulerAlgorithm", "MemoryOversubscriptionEnabled").contains(f)) {
                throw CaravanException.invalid("SchedulerConfiguration." + f, "unknown field");
            }
        }
        JsonNode algorithm = sc.path("SchedulerAlgorithm");
        JsonNode memory = sc.path("MemoryOversubscriptionEnabled");
        if (!memory.isMissingNode() && !memory.isNull() && !memory.isBoolean()) {
            throw CaravanException.invalid("SchedulerConfiguration.MemoryOversubscriptionEnabled", "must be a boolean");
        }
        return new NodePools.SchedulerConfiguration(algorithm.isTextual() ? algorithm.asText() : null,
                memory.isBoolean() ? memory.asBoolean() : null);
    }

    private CompletionStage<ApiResponse> delete(ApiRequest r) {
        String name = r.pathParam("name");
        var snapshot = store.snapshot();
        if (NodePools.get(snapshot, name).isEmpty()) {
            throw new CaravanException(ErrorCode.NOT_FOUND, "node pool \"" + name + "\" not found");
        }
        NodePools.refusal(snapshot, name, agent.region()).ifPresent(refused -> {
            throw CaravanException.badRequest(refused);
        });
        return writes.submit(new Command.NodePoolDelete(List.of(name), agent.region()))
                .thenApply(result -> new ApiResponse(200, null, QueryMeta.index(result.index())));
    }
}
