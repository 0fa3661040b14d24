package io.caravan.client.http.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.caravan.api.model.AllocatedResources;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Job;
import io.caravan.client.ClientAllocs;
import io.caravan.client.http.internal.ClientAllocRoutes.CpuStats;
import io.caravan.client.http.internal.ClientAllocRoutes.MemoryStats;
import io.caravan.metrics.MetricSink;

/**
 * Nomad's per-allocation metrics ({@code publish_allocation_metrics}): each running task's
 * {@code nomad.client.allocs.memory.*} and {@code nomad.client.allocs.cpu.*}, labelled as Nomad's task runner labels
 * them. The readings are the {@link UsageSampler}'s that {@code /v1/client/allocation/:id/stats} uses, taken on the
 * telemetry sampling task without waiting for a baseline: CPU shares cover the time since the previous sample (zero
 * on a task's first). A task that stops is not reported, so its series disappears.
 */
final class AllocMetrics {
    static final String MEMORY = "nomad.client.allocs.memory.";
    static final String CPU = "nomad.client.allocs.cpu.";

    private final ClientAllocs allocs;
    private final UsageSampler sampler;
    private final ProcFs proc;

    AllocMetrics(ClientAllocs allocs, UsageSampler sampler, ProcFs proc) {
        this.allocs = allocs;
        this.sampler = sampler;
        this.proc = proc;
    }

    void report(MetricSink sink) {
        if (!sink.options().publishAllocationMetrics()) {
            return;
        }
        double mhz = proc.cpuMhz();
        List<Long> livePids = new ArrayList<>();
        List<String> liveKeys = new ArrayList<>();
        for (String allocId : allocs.allocIds()) {
            Optional<Allocation> alloc = allocs.alloc(allocId);
            Map<String, List<Long>> tasks;
            try {
                tasks = alloc.isEmpty() ? Map.of() : allocs.taskPids(allocId);
            } catch (IllegalArgumentException e) {
                continue;   // collected since allocIds()
            }
            for (Map.Entry<String, List<Long>> task : tasks.entrySet()) {
                if (task.getValue().isEmpty()) {
                    continue;   // its driver cannot tell its processes: nothing measured
                }
                String key = allocId + "/" + task.getKey();
                livePids.addAll(task.getValue());
                liveKeys.add(key);
                var usage = sampler.task(key, task.getValue(), mhz).total();
                Map<String, String> labels = labels(alloc.get(), task.getKey());
                AllocatedResources.TaskResources allocated = alloc.get().allocatedResources() == null ? null
                        : alloc.get().allocatedResources().tasks().get(task.getKey());
                memory(sink, labels, usage.memoryStats(), allocated);
                cpu(sink, labels, usage.cpuStats(), allocated);
            }
        }
        sampler.retain(livePids, liveKeys);
    }

    /** A memory figure is reported when measured or non-zero, as Nomad does; {@code allocated} in bytes. */
    private static void memory(MetricSink sink, Map<String, String> labels, MemoryStats m,
                               AllocatedResources.TaskResources allocated) {
        memoryFigure(sink, labels, m, "rss", "RSS", m.rss());
        memoryFigure(sink, labels, m, "cache", "Cache", m.cache());
        memoryFigure(sink, labels, m, "swap", "Swap", m.swap());
        memoryFigure(sink, labels, m, "mapped_file", "Mapped File", m.mappedFile());
        memoryFigure(sink, labels, m, "usage", "Usage", m.usage());
        memoryFigure(sink, labels, m, "max_usage", "Max Usage", m.maxUsage());
        memoryFigure(sink, labels, m, "kernel_usage", "Kernel Usage", m.kernelUsage());
        memoryFigure(sink, labels, m, "kernel_max_usage", "Kernel Max Usage", m.kernelMaxUsage());
        long mb = allocated == null || allocated.memory() == null ? 0 : allocated.memory().memoryMb();
        if (mb > 0) {
            sink.gauge(MEMORY + "allocated", labels, mb * 1024 * 1024);
        }
    }

    private static void memoryFigure(MetricSink sink, Map<String, String> labels, MemoryStats m, String name,
                                     String measured, long value) {
        if (value != 0 || m.measured().contains(measured)) {
            sink.gauge(MEMORY + name, labels, value);
        }
    }

    /** Percentages, throttling (nanoseconds, periods) and MHz-ticks; {@code allocated} in MHz. */
    private static void cpu(MetricSink sink, Map<String, String> labels, CpuStats c,
                            AllocatedResources.TaskResources allocated) {
        sink.gauge(CPU + "total_percent", labels, c.percent());
        sink.gauge(CPU + "system", labels, c.systemMode());
        sink.gauge(CPU + "user", labels, c.userMode());
        sink.gauge(CPU + "throttled_time", labels, c.throttledTime());
        sink.gauge(CPU + "throttled_periods", labels, c.throttledPeriods());
        sink.gauge(CPU + "total_ticks", labels, c.totalTicks());
        long shares = allocated == null || allocated.cpu() == null ? 0 : allocated.cpu().cpuShares();
        if (shares > 0) {
            sink.gauge(CPU + "allocated", labels, shares);
        }
    }

    /**
     * Nomad's task labels: {@code job} (the job's name), {@code task_group}, {@code alloc_id}, {@code task},
     * {@code namespace}, and for a dispatched or periodic child job {@code parent_id} with {@code dispatch_id} or
     * {@code periodic_id}.
     */
    static Map<String, String> labels(Allocation alloc, String task) {
        Job job = alloc.job();
        String jobName = job != null && job.name() != null ? job.name() : alloc.jobId();
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("job", String.valueOf(jobName));
        labels.put("task_group", String.valueOf(alloc.taskGroup()));
        labels.put("alloc_id", alloc.id());
        labels.put("task", task);
        labels.put("namespace", String.valueOf(alloc.namespace()));
        if (job != null && job.parentId() != null && !job.parentId().isEmpty()) {
            labels.put("parent_id", job.parentId());
            childId(jobName, "/dispatch-").ifPresent(id -> labels.put("dispatch_id", id));
            childId(jobName, "/periodic-").ifPresent(id -> labels.put("periodic_id", id));
        }
        return labels;
    }

    private static Optional<String> childId(String jobName, String marker) {
        int at = jobName.indexOf(marker);
        return at < 0 ? Optional.empty() : Optional.of(jobName.substring(at + marker.length()));
    }
}
