package io.caravan.rpc.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.caravan.api.CaravanException;
import io.caravan.metrics.MetricSink;
import io.caravan.metrics.TelemetryOptions;
import io.caravan.metrics.Timing;
import io.caravan.rpc.Endpoint;
import org.junit.jupiter.api.Test;

class RpcMetricsTest {
    record Text(String value) {}

    /** Keeps what a source reports, as "name{labels}" → value (a timer: its count). */
    static final class Recorded implements MetricSink {
        final Map<String, Double> values = new TreeMap<>();
        final Map<String, Timing.Snapshot> timers = new TreeMap<>();

        @Override
        public void gauge(String name, Map<String, String> labels, double value) {
            values.put(name + new TreeMap<>(labels), value);
        }

        @Override
        public void counter(String name, Map<String, String> labels, double total) {
            values.put(name + new TreeMap<>(labels), total);
        }

        @Override
        public void timer(String name, Map<String, String> labels, Timing.Snapshot timing) {
            timers.put(name + new TreeMap<>(labels), timing);
        }

        @Override
        public TelemetryOptions options() {
            return TelemetryOptions.DEFAULTS;
        }
    }

    @Test
    void theDispatchersCallsBecomeNomadsRpcMetrics() throws Exception {
        try (RpcEngine engine = new RpcEngine("", Duration.ofSeconds(2), Duration.ofSeconds(20), ServerProof.NONE,
                null)) {
            engine.dispatcher().add(List.of(
                    new Endpoint<>("Test.Echo", Text.class, Text.class, Endpoint.Routing.LOCAL,
                            q -> CompletableFuture.completedFuture(q)),
                    new Endpoint<>("Test.Fail", Text.class, Text.class, Endpoint.Routing.LOCAL,
                            q -> CompletableFuture.failedFuture(CaravanException.invalid("X", "no")))));
            engine.dispatch("Test.Echo", new Text("a"), Text.class).toCompletableFuture().get(10, TimeUnit.SECONDS);
            engine.dispatch("Test.Echo", new Text("b"), Text.class).toCompletableFuture().get(10, TimeUnit.SECONDS);
            engine.dispatch("Test.Fail", new Text("c"), Text.class).toCompletableFuture()
                    .handle((r, e) -> r).get(10, TimeUnit.SECONDS);

            Recorded sink = new Recorded();
            new RpcMetrics(engine).sample(sink);

            assertEquals(Map.of("nomad.nomad.rpc.request{method=Test.Echo}", 2.0,
                    "nomad.nomad.rpc.request{method=Test.Fail}", 1.0,
                    "nomad.nomad.rpc.request_error{method=Test.Fail}", 1.0), sink.values);
            Timing.Snapshot echo = sink.timers.get("nomad.nomad.rpc.request_time{method=Test.Echo}");
            assertEquals(2, echo.count());
            assertTrue(echo.totalMillis() >= echo.maxMillis() && echo.maxMillis() >= echo.minMillis(), echo.toString());
        }
    }
}
