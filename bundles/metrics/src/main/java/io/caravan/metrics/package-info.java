/**
 * The agent's telemetry (Nomad's {@code telemetry {}} block). A bundle publishes metrics by registering a
 * {@link io.caravan.metrics.MetricSource} service next to what it measures; the telemetry component samples every
 * source once per {@code collection_interval} on one task and serves the result as Nomad's JSON summary or Prometheus
 * text ({@link io.caravan.metrics.Telemetry}), both written straight from the last pass's readings (no metrics
 * library: a registry's meter per series cost five times the heap at the leader's scale).
 */
@Version("1.0.0")
package io.caravan.metrics;

import org.osgi.annotation.versioning.Version;
