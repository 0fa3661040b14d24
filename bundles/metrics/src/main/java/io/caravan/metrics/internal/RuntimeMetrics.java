package io.caravan.metrics.internal;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.Map;

import io.caravan.metrics.MetricSink;
import io.caravan.metrics.MetricSource;

/**
 * Nomad's {@code nomad.runtime.*} gauges, from the JVM: {@code num_goroutines} is the JVM's live thread count,
 * {@code alloc_bytes} the heap in use, {@code sys_bytes} the heap and non-heap memory committed,
 * {@code total_gc_runs} and {@code total_gc_pause_ns} every collector's collections and time. Go's
 * {@code heap_objects}, {@code malloc_count} and {@code free_count} have no JVM counterpart and are not published.
 */
final class RuntimeMetrics implements MetricSource {
    private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();

    @Override
    public void sample(MetricSink sink) {
        Map<String, String> none = Map.of();
        sink.gauge("nomad.runtime.num_goroutines", none, ManagementFactory.getThreadMXBean().getThreadCount());
        sink.gauge("nomad.runtime.alloc_bytes", none, memory.getHeapMemoryUsage().getUsed());
        sink.gauge("nomad.runtime.sys_bytes", none, memory.getHeapMemoryUsage().getCommitted()
                + memory.getNonHeapMemoryUsage().getCommitted());
        long runs = 0;
        long pauseMillis = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            runs += Math.max(0, gc.getCollectionCount());
            pauseMillis += Math.max(0, gc.getCollectionTime());
        }
        sink.gauge("nomad.runtime.total_gc_runs", none, runs);
        sink.gauge("nomad.runtime.total_gc_pause_ns", none, pauseMillis * 1_000_000.0);
    }
}
