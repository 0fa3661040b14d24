package io.caravan.server.internal;

import java.time.Clock;
import java.util.concurrent.CompletionStage;

import io.caravan.api.acl.AclRule;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiRequest;
import io.caravan.http.ApiResponse;
import io.caravan.http.ApiRoutes;
import io.caravan.http.RouteTable;
import io.caravan.state.StateStore;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;

/**
 * Nomad's {@code /v1/system} endpoints, management only and served by the leader: a forced garbage collection (every
 * threshold ignored, {@link CoreGc}) and a recount of every job summary. Both answer once their writes are applied.
 */
@Component(service = ApiRoutes.class, configurationPid = "io.caravan.server",
        configurationPolicy = ConfigurationPolicy.REQUIRE)
public final class SystemRoutes implements ApiRoutes {
    static final ApiEndpoint GC = ApiEndpoint.of("System.GarbageCollect", AclRule.MANAGEMENT).onLeader();
    static final ApiEndpoint RECONCILE = ApiEndpoint.of("System.ReconcileJobSummaries", AclRule.MANAGEMENT)
            .onLeader();

    private final StateStore store;
    private final RaftWrites writes;
    private final Clock clock = Clock.systemUTC();
    private volatile CoreGc.Thresholds thresholds;

    @Activate
    public SystemRoutes(@Reference ServerState state, @Reference RaftWrites writes, CoreGc.Config config) {
        this.store = state.store();
        this.writes = writes;
        modified(config);
    }

    @Modified
    void modified(CoreGc.Config config) {
        thresholds = CoreGc.Thresholds.of(config).forced();
    }

    @Override
    public void register(RouteTable routes) {
        routes.writeAsync("/v1/system/gc", GC, this::gc)
                .writeAsync("/v1/system/reconcile/summaries", RECONCILE, this::reconcile);
    }

    private CompletionStage<ApiResponse> gc(ApiRequest r) {
        return new CoreGc(store, writes, clock, thresholds).collect().thenApply(n -> ApiResponse.empty());
    }

    private CompletionStage<ApiResponse> reconcile(ApiRequest r) {
        return writes.submit(new Command.JobSummariesReconcile(clock.millis() * 1_000_000L))
                .thenApply(result -> ApiResponse.empty());
    }
}
