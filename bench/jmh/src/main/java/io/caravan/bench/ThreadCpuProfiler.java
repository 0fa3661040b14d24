package io.caravan.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * CPU time of the benchmark threads per operation ({@code cpu.ms/op}), next to JMH's wall-clock score. On a shared
 * machine other processes stretch wall time several-fold while the CPU time a single-threaded operation needs hardly
 * moves, so compare variants on this figure. GC and JIT threads are not counted (see {@code -prof gc}).
 *
 * <pre>
 *   java -jar bench/jmh/target/benchmarks.jar SchedulerEvalBenchmark -prof io.caravan.bench.ThreadCpuProfiler
 * </pre>
 */
public final class ThreadCpuProfiler implements InternalProfiler {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private final Map<Long, Long> atStart = new HashMap<>();

    @Override
    public String getDescription() {
        return "CPU time of the JMH worker threads per operation";
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
        atStart.clear();
        atStart.putAll(workerCpu());
    }

    @Override
    public Collection<? extends Result> afterIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams,
                                                       IterationResult result) {
        long used = 0;
        for (Map.Entry<Long, Long> e : workerCpu().entrySet()) {
            used += e.getValue() - atStart.getOrDefault(e.getKey(), 0L);
        }
        long ops = Math.max(1, result.getMetadata().getAllOps());
        return List.of(new ScalarResult("cpu.ms/op", used / 1e6 / ops, "ms/op", AggregationPolicy.AVG));
    }

    /** Thread ID → CPU nanoseconds of the live JMH worker threads. */
    private static Map<Long, Long> workerCpu() {
        Map<Long, Long> out = new HashMap<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().contains("jmh-worker")) {
                long cpu = THREADS.getThreadCpuTime(t.getId());
                if (cpu >= 0) {
                    out.put(t.getId(), cpu);
                }
            }
        }
        return out;
    }
}
