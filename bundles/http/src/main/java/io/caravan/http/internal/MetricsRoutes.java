package io.caravan.http.internal;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.AclRule;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiResponse;
import io.caravan.http.ApiRoutes;
import io.caravan.http.MetricCounters;
import io.caravan.http.RouteTable;
import io.caravan.rpc.Rpc;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * Nomad's {@code /v1/metrics} in its JSON shape (go-metrics' in-memory dump): for now the RPC dispatcher's
 * per-endpoint counts ({@code nomad.rpc.request}, {@code nomad.rpc.request_error}, labelled by method) and call
 * durations in milliseconds ({@code nomad.rpc.request_time}), and the API endpoints' calls per caller
 * ({@code nomad.rpc.request} labelled by method and identity), and the counters other components publish
 * ({@link MetricCounters}). The Prometheus format answers 415 as Nomad does
 * without {@code telemetry.prometheus_metrics}.
 */
@Component(service = ApiRoutes.class)
public final class MetricsRoutes implements ApiRoutes {
    /** Open to anyone, as in Nomad. */
    static final ApiEndpoint METRICS = ApiEndpoint.of("Metrics.Summary", AclRule.PUBLIC);

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile Rpc rpc;
    @Reference
    private EndpointCalls calls;
    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    private volatile List<MetricCounters> published = List.of();

    record Sampled(String name, long count, double sum, double min, double max, double mean, double stddev,
                   Map<String, String> labels) {}

    record Summary(String timestamp, List<Object> gauges, List<Sampled> counters, List<Sampled> samples,
                   List<Object> points) {}

    @Override
    public void register(RouteTable routes) {
        routes.get("/v1/metrics", METRICS, r -> {
            if (r.query("format").filter("prometheus"::equals).isPresent()) {
                throw new CaravanException(ErrorCode.UNSUPPORTED_MEDIA_TYPE, "Prometheus is not enabled");
            }
            List<Sampled> counters = new ArrayList<>();
            List<Sampled> samples = new ArrayList<>();
            Rpc local = rpc;
            for (Rpc.EndpointStats s : local == null ? List.<Rpc.EndpointStats>of() : local.stats()) {
                Map<String, String> labels = Map.of("method", s.method());
                counters.add(counter("nomad.rpc.request", s.calls(), labels));
                if (s.errors() > 0) {
                    counters.add(counter("nomad.rpc.request_error", s.errors(), labels));
                }
                if (s.calls() > 0) {
                    samples.add(new Sampled("nomad.rpc.request_time", s.calls(), s.totalMillis(), s.minMillis(),
                            s.maxMillis(), s.totalMillis() / s.calls(), 0, labels));
                }
            }
            // API endpoints by caller (seed 001): who calls what, never a secret.
            for (EndpointCalls.Count c : calls.snapshot()) {
                counters.add(counter("nomad.rpc.request", c.calls(), Map.of("method", c.method(), "identity",
                        c.identity())));
            }
            for (MetricCounters source : published) {
                for (MetricCounters.Counter c : source.counters()) {
                    counters.add(counter(c.name(), c.count(), c.labels()));
                }
            }
            String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString().replace("T", " ")
                    .replace("Z", " +0000 UTC");
            return ApiResponse.ok(new Summary(now, List.of(), counters, samples, List.of()));
        });
    }

    private static Sampled counter(String name, long count, Map<String, String> labels) {
        return new Sampled(name, count, count, 1, 1, 1, 0, labels);
    }
}
