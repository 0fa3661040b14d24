package io.caravan.rpc.internal;

import java.util.Map;

import io.caravan.metrics.MetricSink;
import io.caravan.metrics.MetricSource;
import io.caravan.metrics.Timing;
import io.caravan.rpc.Rpc;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * What this agent's RPC dispatcher served, per endpoint ({@code method} label): Nomad's
 * {@code nomad.nomad.rpc.request} and {@code nomad.nomad.rpc.request_error} counters and the calls' durations
 * ({@code nomad.nomad.rpc.request_time}, milliseconds).
 */
@Component(service = MetricSource.class)
public final class RpcMetrics implements MetricSource {
    private final Rpc rpc;

    @Activate
    public RpcMetrics(@Reference Rpc rpc) {
        this.rpc = rpc;
    }

    @Override
    public void sample(MetricSink sink) {
        for (Rpc.EndpointStats s : rpc.stats()) {
            Map<String, String> labels = Map.of("method", s.method());
            sink.counter("nomad.nomad.rpc.request", labels, s.calls());
            if (s.errors() > 0) {
                sink.counter("nomad.nomad.rpc.request_error", labels, s.errors());
            }
            if (s.calls() > 0) {
                sink.timer("nomad.nomad.rpc.request_time", labels, new Timing.Snapshot(s.calls(), s.totalMillis(),
                        s.minMillis(), s.maxMillis(), 0));
            }
        }
    }
}
