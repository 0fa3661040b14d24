package io.caravan.server.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.caravan.agent.AgentInfo;
import io.caravan.api.acl.Access;
import io.caravan.api.acl.AclRule;
import io.caravan.api.acl.Scope;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiResponse;
import io.caravan.http.ApiRoutes;
import io.caravan.http.RouteTable;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * Nomad's {@code GET /v1/agent/schedulers} on a server: its scheduler workers. Caravan runs workers on the leader
 * only; a follower lists its configured {@code num_schedulers} as paused, which is what Nomad's followers show.
 */
@Component(service = ApiRoutes.class, configurationPid = "io.caravan.server",
        configurationPolicy = ConfigurationPolicy.REQUIRE)
public final class SchedulerRoutes implements ApiRoutes {
    static final ApiEndpoint SCHEDULERS = ApiEndpoint.of("Agent.Schedulers", AclRule.scope(Scope.AGENT,
            Access.READ));

    /** Nomad's {@code AgentSchedulerWorkersInfo}. */
    record WorkersInfo(String serverID, List<SchedulerWorker.Info> schedulers) {}

    private final AgentInfo agent;
    private volatile ServerSchedulingConfig config;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    volatile LeaderDuties leader;

    @Activate
    public SchedulerRoutes(@Reference AgentInfo agent, ServerSchedulingConfig config) {
        this.agent = agent;
        this.config = config;
    }

    @Modified
    void modified(ServerSchedulingConfig config) {
        this.config = config;
    }

    @Override
    public void register(RouteTable routes) {
        routes.get("/v1/agent/schedulers", SCHEDULERS, r -> ApiResponse.ok(info()));
    }

    WorkersInfo info() {
        String server = agent.name() + "." + agent.region();
        LeaderDuties duties = leader;
        if (duties != null) {
            return new WorkersInfo(server, duties.workers());
        }
        ServerSchedulingConfig c = config;
        int count = c.num_schedulers() > 0 ? c.num_schedulers() : Runtime.getRuntime().availableProcessors();
        List<String> types = java.util.Arrays.stream(c.enabled_schedulers()).sorted().toList();
        List<SchedulerWorker.Info> paused = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            // Stable per server and slot, so that repeated calls name the same paused worker.
            String id = UUID.nameUUIDFromBytes((server + "/" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8))
                    .toString();
            paused.add(new SchedulerWorker.Info(id, types, "", "Paused", "Paused"));
        }
        return new WorkersInfo(server, paused);
    }
}
