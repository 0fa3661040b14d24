package io.caravan.http;

import java.util.List;
import java.util.Map;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Counters a component publishes in {@code /v1/metrics}: provide this service and the metrics endpoint lists what
 * {@link #counters()} returns at each request, next to the RPC and API counts it keeps itself.
 */
@ConsumerType
public interface MetricCounters {
    /** One counter as go-metrics names it ({@code nomad.client.introduction_violation_num}), with its labels. */
    record Counter(String name, long count, Map<String, String> labels) {
        public Counter {
            labels = Map.copyOf(labels);
        }
    }

    /** The counters now; only those that counted something need be listed. */
    List<Counter> counters();
}
