package io.caravan.server.internal;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.caravan.metrics.MetricSink;
import io.caravan.metrics.Timing;

/**
 * The scheduler workers' timings under Nomad's names, shared by the workers of one leadership term:
 * {@code nomad.nomad.worker.invoke_scheduler.<type>}, {@code wait_for_index} and {@code submit_plan}.
 */
final class WorkerTimings {
    private final Map<String, Timing> timings = new ConcurrentHashMap<>();

    void record(String name, long nanos) {
        timings.computeIfAbsent("nomad.nomad.worker." + name, n -> new Timing()).recordNanos(nanos);
    }

    void report(MetricSink sink) {
        timings.forEach((name, t) -> sink.timer(name, Map.of(), t.snapshot()));
    }
}
