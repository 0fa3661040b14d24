package io.caravan.http.internal;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import io.caravan.api.acl.Identity;
import io.caravan.metrics.MetricSink;
import io.caravan.metrics.MetricSource;
import org.osgi.service.component.annotations.Component;

/**
 * How many calls each endpoint served, per caller identity ({@code anonymous}, {@code token:<accessor>},
 * {@code node:<id>}, {@code server:<name>}): the {@code nomad.nomad.rpc.request} counter with Nomad's {@code method}
 * and {@code identity} labels (seed 001), so an operator sees who is calling what; without the identity label when
 * {@code telemetry.disable_rpc_rate_metrics_labels} is set. Counted after authentication and before authorization,
 * so refused calls count too.
 */
@Component(service = {EndpointCalls.class, MetricSource.class})
public final class EndpointCalls implements MetricSource {
    record Key(String method, String identity) {}

    private final Map<Key, LongAdder> counts = new ConcurrentHashMap<>();

    void count(String method, Identity caller) {
        counts.computeIfAbsent(new Key(method, caller.label()), k -> new LongAdder()).increment();
    }

    @Override
    public void sample(MetricSink sink) {
        boolean identity = sink.options().rpcIdentityLabels();
        counts.forEach((k, v) -> sink.counter("nomad.nomad.rpc.request", identity
                ? Map.of("method", k.method(), "identity", k.identity()) : Map.of("method", k.method()), v.sum()));
    }
}
