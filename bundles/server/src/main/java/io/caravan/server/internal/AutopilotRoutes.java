package io.caravan.server.internal;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.Access;
import io.caravan.api.acl.AclRule;
import io.caravan.api.acl.Scope;
import io.caravan.consensus.RaftConfiguration;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiRequest;
import io.caravan.http.ApiResponse;
import io.caravan.http.ApiRoutes;
import io.caravan.http.QueryMeta;
import io.caravan.http.RouteTable;
import io.caravan.membership.Membership;
import io.caravan.state.Indexed;
import io.caravan.state.StateStore;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Nomad's {@code /v1/operator/autopilot/configuration} (read from this server's state; written through the log, with
 * {@code ?cas=}) and {@code /v1/operator/autopilot/health} (answered by the leader, 429 when not healthy, as Nomad).
 * Also hands the stored configuration to the Raft server on every server, whenever it changes or the state is
 * restored, so that whichever server leads cleans up dead servers as configured. Until a configuration is written,
 * each server uses its agent's {@code autopilot} block (Nomad writes the first leader's block at bootstrap; here a
 * server whose block differs from its peers' may act differently until the first write).
 */
@Component(service = ApiRoutes.class, configurationPid = "io.caravan.server",
        configurationPolicy = ConfigurationPolicy.REQUIRE)
public final class AutopilotRoutes implements ApiRoutes, ServerState.AppliedListener {
    private static final Logger LOG = LoggerFactory.getLogger(AutopilotRoutes.class);
    static final ApiEndpoint GET_CONFIG = ApiEndpoint.of("Operator.AutopilotGetConfiguration",
            AclRule.scope(Scope.OPERATOR, Access.READ));
    static final ApiEndpoint SET_CONFIG = ApiEndpoint.of("Operator.AutopilotSetConfiguration",
            AclRule.scope(Scope.OPERATOR, Access.WRITE)).onLeader();
    static final ApiEndpoint HEALTH = ApiEndpoint.of("Operator.ServerHealth",
            AclRule.scope(Scope.OPERATOR, Access.READ)).onLeader();

    private final ServerState state;
    private final StateStore store;
    private final StateReads reads;
    private final RaftWrites writes;
    private final Autopilot.Stability stability = new Autopilot.Stability();
    private volatile RaftConfiguration raft;
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    volatile Membership membership;

    /** The agent's {@code autopilot} block: the configuration until one is written through the API. */
    private final AutopilotConfig initial;

    @Activate
    public AutopilotRoutes(@Reference ServerState state, @Reference RaftWrites writes,
                           java.util.Map<String, Object> properties) {
        AutopilotConfig fromAgent;
        try {
            fromAgent = Autopilot.fromAgent(properties);
        } catch (IllegalArgumentException e) {
            LOG.warn("the agent's autopilot block is not valid ({}); using Nomad's defaults", e.getMessage());
            fromAgent = AutopilotConfig.DEFAULT;
        }
        this.initial = fromAgent;
        this.state = state;
        this.store = state.store();
        this.reads = new StateReads(store, writes);
        this.writes = writes;
        state.addListener(this);
        push();
    }

    @Deactivate
    void deactivate() {
        state.removeListener(this);
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    void bindRaft(RaftConfiguration group) {
        raft = group;
        push();
    }

    void unbindRaft(RaftConfiguration group) {
        if (raft == group) {
            raft = null;
        }
    }

    @Override
    public void applied(long index, Command command) {
        if (command instanceof Command.AutopilotConfigUpdate) {
            push();
        }
    }

    @Override
    public void restored() {
        push();
    }

    /** The stored cleanup settings to the Raft server (quick: it keeps two fields). */
    private void push() {
        RaftConfiguration group = raft;
        if (group != null) {
            AutopilotConfig config = Autopilot.config(store.snapshot(), initial);
            group.deadServerCleanup(config.cleanupDeadServers(), config.minQuorum());
        }
    }

    @Override
    public void register(RouteTable routes) {
        routes.getAsync("/v1/operator/autopilot/configuration", GET_CONFIG, r -> reads.query(r, (s, ws) -> {
                    ws.table(Autopilot.CONFIG.name());
                    return new Indexed<>(Autopilot.config(s, initial), s.tableIndex(Autopilot.CONFIG.name()));
                }).toCompletableFuture())
                .writeAsync("/v1/operator/autopilot/configuration", SET_CONFIG,
                        r -> setConfig(r).toCompletableFuture())
                .getAsync("/v1/operator/autopilot/health", HEALTH, r -> CompletableFuture.completedFuture(health()));
    }

    private CompletionStage<ApiResponse> setConfig(ApiRequest r) {
        AutopilotConfig given = r.body(AutopilotConfig.class);
        if (given == null) {
            throw CaravanException.badRequest("missing autopilot configuration");
        }
        AutopilotConfig config;
        try {
            config = given.validated();
        } catch (IllegalArgumentException e) {
            int colon = e.getMessage().indexOf(':');
            throw CaravanException.invalid(e.getMessage().substring(0, colon), e.getMessage().substring(colon + 2));
        }
        if (config.enableRedundancyZones() || config.disableUpgradeMigration() || config.enableCustomUpgrades()) {
            LOG.warn("autopilot: EnableRedundancyZones, DisableUpgradeMigration and EnableCustomUpgrades are Nomad "
                    + "Enterprise features; they are stored but have no effect");
        }
        if (!config.serverStabilizationTime().equals(AutopilotConfig.DEFAULT.serverStabilizationTime())) {
            LOG.warn("autopilot: ServerStabilizationTime is stored but has no effect: Caravan adds a server as a "
                    + "voter once its Raft runs, with no non-voter stage to promote from");
        }
        Optional<String> cas = r.query("cas");
        long expected = 0;
        if (cas.isPresent()) {
            try {
                expected = Long.parseLong(cas.get());
            } catch (NumberFormatException e) {
                throw CaravanException.badRequest("Error parsing cas value: " + cas.get());
            }
        }
        boolean isCas = cas.isPresent();
        return writes.submit(new Command.AutopilotConfigUpdate(config, isCas, expected))
                .thenApply(result -> ApiResponse.ok(true, QueryMeta.index(result.index())))
                .exceptionally(error -> {
                    Throwable cause = error instanceof CompletionException ? error.getCause() : error;
                    if (isCas && cause instanceof CaravanException ce && ce.code() == ErrorCode.CONFLICT) {
                        return ApiResponse.ok(false, QueryMeta.index(store.snapshot()
                                .tableIndex(Autopilot.CONFIG.name())));
                    }
                    throw cause instanceof RuntimeException re ? re : new CompletionException(cause);
                });
    }

    /** Nomad's OperatorHealthReply; 429 with the same body when not every server is healthy. */
    ApiResponse health() {
        RaftConfiguration group = raft;
        List<RaftConfiguration.Progress> progress = group == null ? List.of() : group.progress();
        if (progress.isEmpty()) {
            throw new CaravanException(ErrorCode.NO_LEADER, "No cluster leader");
        }
        Membership m = membership;
        AutopilotConfig config = Autopilot.config(store.snapshot(), initial);
        Autopilot.HealthReply reply = Autopilot.health(config, group.servers(), progress, group.term(),
                m == null ? List.of() : m.members(), stability, Instant.now());
        return new ApiResponse(reply.healthy() ? 200 : 429, reply, QueryMeta.LOCAL);
    }
}
