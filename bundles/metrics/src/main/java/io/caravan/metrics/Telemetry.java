package io.caravan.metrics;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The agent's metrics as last sampled, for {@code GET /v1/metrics}: Nomad's JSON summary, or Prometheus text
 * exposition 0.0.4 when {@code telemetry.prometheus_metrics} is on.
 */
@ProviderType
public interface Telemetry {

    /** Prometheus' text format, the {@code Content-Type} its body goes with. */
    String PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    /** Nomad's JSON shape (go-metrics' in-memory summary). */
    Summary summary();

    /** The text exposition; empty unless {@code prometheus_metrics = true}. */
    Optional<String> prometheus();

    /** One gauge's value. */
    record Gauge(String name, double value, Map<String, String> labels) {}

    /** A counter ({@code count} = {@code sum}: each increment counts 1) or a sample of durations in milliseconds. */
    record Sampled(String name, long count, double sum, double min, double max, double mean,
                   double stddev, Map<String, String> labels) {}

    /** {@code GET /v1/metrics}: {@code Timestamp} as go-metrics writes it ({@code 2026-11-29 05:00:00 +0000 UTC}). */
    record Summary(String timestamp, List<Gauge> gauges, List<Sampled> counters, List<Sampled> samples,
                   List<Object> points) {}
}
