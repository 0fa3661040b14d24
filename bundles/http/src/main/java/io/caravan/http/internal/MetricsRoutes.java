package io.caravan.http.internal;

import java.nio.charset.StandardCharsets;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.AclRule;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiResponse;
import io.caravan.http.ApiRoutes;
import io.caravan.http.RouteTable;
import io.caravan.metrics.Telemetry;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * Nomad's {@code /v1/metrics}: the agent's telemetry as last sampled, in Nomad's JSON shape, or with
 * {@code ?format=prometheus} as Prometheus text when {@code telemetry.prometheus_metrics} is on (415 otherwise, as
 * Nomad answers).
 */
@Component(service = ApiRoutes.class)
public final class MetricsRoutes implements ApiRoutes {
    /** Open to anyone, as in Nomad. */
    static final ApiEndpoint METRICS = ApiEndpoint.of("Metrics.Summary", AclRule.PUBLIC);

    private final Telemetry telemetry;

    @Activate
    public MetricsRoutes(@Reference Telemetry telemetry) {
        this.telemetry = telemetry;
    }

    @Override
    public void register(RouteTable routes) {
        routes.get("/v1/metrics", METRICS, r -> {
            if (r.query("format").filter("prometheus"::equals).isPresent()) {
                String text = telemetry.prometheus().orElseThrow(() -> new CaravanException(
                        ErrorCode.UNSUPPORTED_MEDIA_TYPE, "Prometheus is not enabled"));
                return ApiResponse.raw(Telemetry.PROMETHEUS_CONTENT_TYPE, text.getBytes(StandardCharsets.UTF_8));
            }
            return ApiResponse.ok(telemetry.summary());
        });
    }
}
