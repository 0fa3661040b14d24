package io.caravan.metrics;

import java.util.Map;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Where a {@link MetricSource} reports one sampling pass. Names are Nomad's full dotted names
 * ({@code nomad.nomad.broker.total_ready}); labels are Nomad's ({@code job}, {@code namespace}, {@code node_id}...).
 * The same name and labels reported twice in a pass add up (a counter that lost a label, say).
 */
@ProviderType
public interface MetricSink {

    /** A value as it is now (a queue depth, bytes in use). */
    void gauge(String name, Map<String, String> labels, double value);

    /** A count that only grows, kept by the source (calls served so far). */
    void counter(String name, Map<String, String> labels, double total);

    /** Durations the source recorded ({@code nomad.nomad.plan.apply}), reported as a sample/summary in milliseconds. */
    void timer(String name, Map<String, String> labels, Timing.Snapshot timing);

    /** What the operator asked to publish ({@code telemetry {}}). */
    TelemetryOptions options();
}
