package io.caravan.metrics.internal;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.Map;

import io.caravan.metrics.TelemetryOptions;

/**
 * What the sampler costs at the leader's scale (issue 19): 20,000 jobs × 7 {@code nomad.nomad.job_summary.*} gauges =
 * 140,000 series. Prints the heap the book retains per series and the thread CPU of one pass (building it and
 * {@link Readings#apply}) and of one rendering of each output. Not a test: run its {@code main} by hand
 * ({@code java -cp target/classes:target/test-classes:<deps> io.caravan.metrics.internal.ReadingsBench [jobs]}).
 */
public final class ReadingsBench {
    private static final String[] STATES = {"queued", "complete", "failed", "running", "starting", "lost", "unknown"};

    public static void main(String[] args) {
        int jobs = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        // Label values made once, as the state store holds them: only what the book keeps is counted.
        String[] names = new String[jobs];
        String[] gauges = new String[STATES.length];
        for (int j = 0; j < jobs; j++) {
            names[j] = "job-" + j;
        }
        for (int s = 0; s < STATES.length; s++) {
            gauges[s] = "nomad.nomad.job_summary." + STATES[s];
        }
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        long before = usedAfterGc();
        Readings book = new Readings(new PrefixFilter(List.of(), true), "bench-host");
        int passes = 30;
        long passCpu = 0;
        long renderCpu = 0;
        int measured = 0;
        for (int p = 0; p < passes; p++) {
            long t0 = cpu.getCurrentThreadCpuTime();
            Pass pass = new Pass(TelemetryOptions.DEFAULTS);
            for (int j = 0; j < jobs; j++) {
                Map<String, String> labels = Map.of("job", names[j], "namespace", "default", "task_group", "web");
                for (int s = 0; s < STATES.length; s++) {
                    pass.gauge(gauges[s], labels, p + s);
                }
            }
            book.apply(pass);
            long t1 = cpu.getCurrentThreadCpuTime();
            int length = 0;
            if (p % 3 == 0) {
                List<Readings.Row> rows = book.rows();
                length = PrometheusText.write(rows).length() + Readings.summary(rows, "t").gauges().size();
            }
            long t2 = cpu.getCurrentThreadCpuTime();
            if (p >= 10) {   // after the JIT's warm-up
                passCpu += t1 - t0;
                if (length > 0) {
                    renderCpu += t2 - t1;
                    measured++;
                }
            }
        }
        long series = (long) jobs * STATES.length;
        long retained = usedAfterGc() - before;
        System.out.printf("series=%d retained=%.1f MB bytes/series=%d pass_cpu=%.1f ms render_cpu=%.1f ms%n", series,
                retained / 1e6, retained / series, passCpu / 1e6 / (passes - 10), renderCpu / 1e6 / measured);
        if (book.rows().size() != series) {   // keeps the book reachable until the heap was measured
            throw new AssertionError("rows");
        }
    }

    private static long usedAfterGc() {
        Runtime rt = Runtime.getRuntime();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            used = Math.min(used, rt.totalMemory() - rt.freeMemory());
        }
        return used;
    }
}
