package io.caravan.metrics.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.annotation.Annotation;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import io.caravan.api.timer.SharedTimers;
import io.caravan.metrics.MetricSource;
import org.junit.jupiter.api.Test;

class TelemetryComponentTest {

    /** The configuration DS would pass for a telemetry block. */
    private static TelemetryComponent.Config config(String interval, boolean prometheus, boolean identity,
                                                    String... prefixFilter) {
        return new TelemetryComponent.Config() {
            public Class<? extends Annotation> annotationType() {
                return TelemetryComponent.Config.class;
            }

            public String collection_interval() {
                return interval;
            }

            public boolean disable_hostname() {
                return true;
            }

            public String[] prefix_filter() {
                return prefixFilter;
            }

            public boolean filter_default() {
                return true;
            }

            public boolean prometheus_metrics() {
                return prometheus;
            }

            public boolean publish_allocation_metrics() {
                return false;
            }

            public boolean publish_node_metrics() {
                return true;
            }

            public boolean disable_rpc_rate_metrics_labels() {
                return !identity;
            }
        };
    }

    @Test
    void prometheusIsOffUnlessConfigured() {
        TelemetryComponent off = new TelemetryComponent(config("1s", false, true));
        try {
            assertEquals(Optional.empty(), off.prometheus(), "/v1/metrics?format=prometheus answers 415");
        } finally {
            off.deactivate();
        }
    }

    @Test
    void oneTaskOnTheSharedTimerSamplesEverySourceWithTheOptions() throws Exception {
        SharedTimers shared = new SharedTimers();
        TelemetryComponent on = new TelemetryComponent(config("50ms", true, false, "-nomad.runtime"), shared);
        AtomicInteger passes = new AtomicInteger();
        try {
            MetricSource source = sink -> {
                passes.incrementAndGet();
                sink.gauge("nomad.nomad.broker.total_ready", Map.of(), sink.options().rpcIdentityLabels() ? 1 : 0);
                sink.gauge("nomad.nomad.heartbeat.active", Map.of(), sink.options().publishNodeMetrics() ? 1 : 0);
            };
            on.addSource(source);
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (passes.get() < 3 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(passes.get() >= 3, "sampled every collection_interval");
            String text = on.prometheus().orElseThrow();
            assertTrue(text.contains("nomad_nomad_broker_total_ready 0\n"), text);
            assertTrue(text.contains("nomad_nomad_heartbeat_active 1\n"), text);
            assertTrue(!text.contains("nomad_runtime"), "the prefix filter drops the runtime gauges: " + text);
            on.removeSource(source);
            on.sample();
            assertEquals("", on.prometheus().orElseThrow(), "a source gone takes its series with it");
            on.addSource(source);
            on.deactivate();
            Thread.sleep(100);   // a pass running at that moment ends
            int stopped = passes.get();
            Thread.sleep(200);
            assertEquals(stopped, passes.get(), "no pass after deactivate");
            assertEquals(0, shared.queued(), "its task left the shared timer");
        } finally {
            on.deactivate();
            shared.close();
        }
    }

    @Test
    void aBadIntervalOrRuleIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new TelemetryComponent(config("0s", true, true)));
        assertThrows(IllegalArgumentException.class, () -> new TelemetryComponent(config("1s", true, true, "x")));
    }
}
