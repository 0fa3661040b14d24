package io.caravan.server.internal;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.caravan.agent.AgentStats;
import io.caravan.agent.HealthContributor;
import io.caravan.api.acl.AclRule;
import io.caravan.consensus.Replicator;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiResponse;
import io.caravan.http.ApiRoutes;
import io.caravan.http.QueryMeta;
import io.caravan.http.RouteTable;
import io.caravan.rpc.LeaderLocator;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * What the Raft log knows about the cluster: the leader and peers for {@code /v1/status/*} (overriding the
 * agent's configuration-based answers), and the server half of {@code /v1/agent/health}, which is unhealthy
 * until there is a leader — so scripts that wait for health can write at once.
 */
@Component(service = {ApiRoutes.class, HealthContributor.class, AgentStats.class},
        configurationPid = "io.caravan.server", configurationPolicy = ConfigurationPolicy.REQUIRE)
public final class ServerStatus implements ApiRoutes, HealthContributor, AgentStats {
    static final ApiEndpoint LEADER = ApiEndpoint.of("Status.Leader", AclRule.PUBLIC);
    static final ApiEndpoint PEERS = ApiEndpoint.of("Status.Peers", AclRule.PUBLIC);

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile Replicator raft;

    /** Servers by RPC address, as Nomad answers (its Raft shares the RPC port; ours does not). */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile LeaderLocator servers;

    /** A reload: nothing here changes live; without this method DS would restart the component on every change. */
    @Modified
    void modified() {
        // nothing to apply
    }

    @Override
    public void register(RouteTable routes) {
        routes.get("/v1/status/leader", LEADER, r -> {
            Replicator log = raft;
            LeaderLocator l = servers;
            String leader = l != null ? l.leaderRpcAddress().orElse("") : "";   // never a Raft address
            return ApiResponse.ok(leader, meta(log));
        });
        routes.get("/v1/status/peers", PEERS, r -> {
            Replicator log = raft;
            LeaderLocator l = servers;
            return ApiResponse.ok(l != null ? l.serverRpcAddresses() : List.of(), meta(log));
        });
    }

    private static QueryMeta meta(Replicator log) {
        return new QueryMeta(log == null ? 0 : log.lastAppliedIndex(), log != null && log.leaderAddress().isPresent(),
                0, null);
    }

    @Override
    public String section() {
        return "nomad";
    }

    /** Whether this server leads, and the leader's RPC address (Nomad's {@code leader}, {@code leader_addr}). */
    @Override
    public Map<String, String> stats() {
        Replicator log = raft;
        LeaderLocator l = servers;
        boolean leads = log != null && log.isLeader();
        String leader = l != null ? l.leaderRpcAddress().orElse("") : "";
        return Map.of("leader", Boolean.toString(leads), "leader_addr", leader);
    }

    @Override
    public String kind() {
        return SERVER;
    }

    @Override
    public Optional<String> problem() {
        Replicator log = raft;
        return log != null && log.leaderAddress().isPresent() ? Optional.empty() : Optional.of("No cluster leader");
    }
}
