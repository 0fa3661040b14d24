package io.caravan.agent.internal;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import io.caravan.agent.AgentConfigService;
import io.caravan.agent.AgentStats;
import io.caravan.agent.HealthContributor;
import io.caravan.agent.RemoteReload;
import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.Access;
import io.caravan.api.acl.AclRule;
import io.caravan.api.acl.Scope;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiRequest;
import io.caravan.http.ApiResponse;
import io.caravan.http.ApiRoutes;
import io.caravan.http.QueryMeta;
import io.caravan.http.RouteTable;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * The agent's own endpoints, and fallback status endpoints answered from the local configuration; a server
 * bundle that knows the Raft leader overrides those with a higher {@code service.ranking}.
 */
@Component(service = ApiRoutes.class, property = "service.ranking:Integer=-1",
        configurationPid = PidTranslator.AGENT_PID,
        configurationPolicy = ConfigurationPolicy.REQUIRE)
public final class AgentRoutes implements ApiRoutes {
    // ---- the endpoints: Nomad's names and the ACL rule each checks ----------------------------------------------
    static final ApiEndpoint SELF = ApiEndpoint.of("Agent.Self", AclRule.scope(Scope.AGENT, Access.READ));
    static final ApiEndpoint HEALTH = ApiEndpoint.of("Agent.Health", AclRule.PUBLIC);
    static final ApiEndpoint RELOAD = ApiEndpoint.of("Agent.Reload", AclRule.scope(Scope.AGENT, Access.WRITE))
            .agentLocal();
    /** The status endpoints are open to anyone, as in Nomad; a server's answers replace these. */
    static final ApiEndpoint LEADER = ApiEndpoint.of("Status.Leader", AclRule.PUBLIC);
    static final ApiEndpoint PEERS = ApiEndpoint.of("Status.Peers", AclRule.PUBLIC);
    static final ApiEndpoint REGIONS = ApiEndpoint.of("Status.Regions", AclRule.PUBLIC);
    static final ApiEndpoint HOST = ApiEndpoint.of("Agent.Host", AclRule.scope(Scope.AGENT, Access.READ));
    /** Answered by a server's routes; this agent has no scheduler workers, so here it is Nomad's 501. */
    static final ApiEndpoint SCHEDULERS = ApiEndpoint.of("Agent.Schedulers", AclRule.scope(Scope.AGENT,
            Access.READ));

    private volatile AgentPidConfig config;

    private final AgentConfigService configService;
    private final List<HealthContributor> health = new CopyOnWriteArrayList<>();
    private final List<AgentStats> stats = new CopyOnWriteArrayList<>();
    /** How a reload reaches another agent; absent (no server bundle), this agent knows only itself. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    volatile RemoteReload remote;

    @Reference(cardinality = ReferenceCardinality.MULTIPLE,
            policy = ReferencePolicy.DYNAMIC)
    void bindHealth(HealthContributor contributor) {
        health.add(contributor);
    }

    void unbindHealth(HealthContributor contributor) {
        health.remove(contributor);
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE,
            policy = ReferencePolicy.DYNAMIC)
    void bindStats(AgentStats contributor) {
        stats.add(contributor);
    }

    void unbindStats(AgentStats contributor) {
        stats.remove(contributor);
    }

    /** The first problem a contributor of {@code kind} reports, if any. */
    private Optional<String> problem(String kind) {
        return health.stream().filter(h -> h.kind().equals(kind)).map(HealthContributor::problem)
                .flatMap(Optional::stream).findFirst();
    }

    @Activate
    public AgentRoutes(AgentPidConfig config, @Reference AgentConfigService configService) {
        this.config = config;
        this.configService = configService;
    }

    @Modified
    void modified(AgentPidConfig config) {
        this.config = config;
    }

    @Override
    public void register(RouteTable routes) {
        routes.get("/v1/agent/self", SELF, r -> {
            AgentPidConfig c = config;
            return ApiResponse.ok(new AgentViews.Self(AgentViews.selfConfig(configService.configuration(),
                    configService.unsupported(), c), AgentViews.member(c), AgentViews.stats(c, stats)));
        });
        routes.get("/v1/agent/health", HEALTH, this::health);
        routes.writeAsync("/v1/agent/reload", RELOAD, this::reload);
        // /v1/agent/members, join, force-leave and servers are the server bundle's ClusterRoutes (on every agent).
        routes.get("/v1/status/leader", LEADER, r -> ApiResponse.ok(config.server_enabled() ? config.advertise_rpc()
                : ""));
        routes.get("/v1/status/peers", PEERS, r -> ApiResponse.ok(
                config.server_enabled() ? List.of(config.advertise_rpc()) : List.of()));
        routes.get("/v1/regions", REGIONS, r -> ApiResponse.ok(List.of(config.region())));
        routes.get("/v1/agent/host", HOST, this::host);
        routes.get("/v1/agent/schedulers", SCHEDULERS, r -> {
            throw new CaravanException(ErrorCode.NOT_IMPLEMENTED, "Server only endpoint");
        });
    }

    /**
     * Reloads this agent, or the agent named by {@code ?node_id=} (a client node) or {@code ?server_id=} (a server)
     * through {@link RemoteReload}. A name that is not this agent's never reloads this one: without a way to reach
     * the others it is a 404.
     */
    private CompletableFuture<ApiResponse> reload(ApiRequest request) {
        AgentPidConfig c = config;
        Optional<String> node = request.query("node_id").filter(id -> !id.isEmpty());
        Optional<String> server = request.query("server_id").filter(id -> !id.isEmpty());
        if (node.isPresent() && server.isPresent()) {
            throw CaravanException.badRequest("Can only forward to either client node or server");
        }
        RemoteReload elsewhere = remote;
        if (node.isPresent() && !isThisNode(c, node.get())) {
            if (elsewhere == null) {
                throw CaravanException.notFound("Unknown node \"" + node.get() + "\"");
            }
            return elsewhere.node(node.get(), request).toCompletableFuture();
        }
        if (server.isPresent() && !isThisServer(c, server.get())) {
            if (elsewhere == null) {
                throw CaravanException.notFound("Unknown server \"" + server.get() + "\"");
            }
            return elsewhere.server(server.get(), request).toCompletableFuture();
        }
        return CompletableFuture.completedFuture(ApiResponse.ok(configService.reload()));
    }

    /**
     * Nomad's {@code GET /v1/agent/host} of this agent. A {@code node_id} or {@code server_id} naming another agent
     * is refused: Caravan does not forward this call (Nomad does).
     */
    private ApiResponse host(ApiRequest request) {
        AgentPidConfig c = config;
        Optional<String> node = request.query("node_id").filter(id -> !id.isEmpty());
        Optional<String> server = request.query("server_id").filter(id -> !id.isEmpty());
        if (node.isPresent() && server.isPresent()) {
            throw CaravanException.badRequest("Can only forward to either client node or server");
        }
        if (node.isPresent() && !isThisNode(c, node.get()) || server.isPresent() && !isThisServer(c, server.get())) {
            throw new CaravanException(ErrorCode.NOT_IMPLEMENTED, "Caravan answers agent/host only for the agent "
                    + "asked; ask the agent at its own address");
        }
        List<java.nio.file.Path> paths = new java.util.ArrayList<>(List.of(java.nio.file.Path.of("/")));
        if (!c.data_dir().isEmpty()) {
            paths.add(java.nio.file.Path.of(c.data_dir()));
        }
        paths.add(java.nio.file.Path.of(System.getProperty("java.io.tmpdir")));
        return ApiResponse.ok(new HostData.Response(c.name(), HostData.collect(System.getenv(), paths)));
    }

    static boolean isThisNode(AgentPidConfig c, String nodeId) {
        return c.client_enabled() && nodeId.equals(c.node_id());
    }

    /** A server is named as its gossip member ({@code name.region}), by its name alone, or by its node ID. */
    static boolean isThisServer(AgentPidConfig c, String server) {
        return c.server_enabled() && (server.equals(c.name()) || server.equals(c.name() + "." + c.region())
                || server.equals(c.node_id()));
    }

    /** Nomad's health: only the kinds asked for ({@code ?type=}), or every enabled kind; unhealthy is a 500. */
    private ApiResponse health(ApiRequest request) {
        AgentPidConfig c = config;
        List<String> types = request.queryAll("type");
        boolean wantClient = types.isEmpty() ? c.client_enabled() : types.contains("client");
        boolean wantServer = types.isEmpty() ? c.server_enabled() : types.contains("server");
        AgentViews.Check client = null;
        AgentViews.Check server = null;
        if (wantClient) {
            client = !c.client_enabled() ? new AgentViews.Check(false, "client not enabled")
                    : AgentViews.knownServers(c).isEmpty() ? new AgentViews.Check(false, "no known servers")
                    : problem(HealthContributor.CLIENT).map(p -> new AgentViews.Check(false, p))
                            .orElse(new AgentViews.Check(true, "ok"));
        }
        if (wantServer) {
            server = !c.server_enabled() ? new AgentViews.Check(false, "server not enabled")
                    // Until the server side has started (and can tell), there is no leader to speak of.
                    : health.stream().noneMatch(h -> h.kind().equals(HealthContributor.SERVER))
                    ? new AgentViews.Check(false, "No cluster leader")
                    : problem(HealthContributor.SERVER).map(p -> new AgentViews.Check(false, p))
                            .orElse(new AgentViews.Check(true, "ok"));
        }
        boolean ok = (client == null || client.ok()) && (server == null || server.ok());
        return new ApiResponse(ok ? 200 : 500, new AgentViews.Health(client, server), QueryMeta.LOCAL);
    }
}
