package io.caravan.metrics;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Something that reports metrics: registered as a service, called once per {@code collection_interval} by the
 * telemetry component's single sampling task. It reports every series it has now; a series it stops reporting (a
 * purged job, a stopped node) disappears from the output. Must be quick and must not block: read counters and sizes,
 * never wait on locks held across I/O.
 */
@ConsumerType
@FunctionalInterface
public interface MetricSource {
    void sample(MetricSink sink);
}
