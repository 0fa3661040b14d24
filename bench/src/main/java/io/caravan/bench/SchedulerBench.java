package io.caravan.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.DriverInfo;
import io.caravan.api.model.EphemeralDisk;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.api.model.Node;
import io.caravan.api.model.NodeReservedResources;
import io.caravan.api.model.NodeResources;
import io.caravan.api.model.Resources;
import io.caravan.api.model.Spread;
import io.caravan.api.model.Task;
import io.caravan.api.model.TaskGroup;
import io.caravan.scheduler.NodeClasses;
import io.caravan.scheduler.Plan;
import io.caravan.scheduler.PlanResult;
import io.caravan.scheduler.Planner;
import io.caravan.scheduler.SchedulerConfiguration;
import io.caravan.scheduler.SchedulerState;
import io.caravan.scheduler.Schedulers;

/**
 * Nomad's scheduler benchmark matrix (scheduler/benchmarks): nodes × racks × job size, with and without a
 * {@code spread} on the rack, timing one service evaluation from {@code Scheduler.process} to the submitted plan
 * (the planner accepts the plan without applying it). In-process, no agent. Prints a table and appends a section
 * to RESULTS.md.
 *
 * <pre>
 *   java -cp bench/target/classes:&lt;scheduler jar&gt;:&lt;api jar&gt; io.caravan.bench.SchedulerBench [--quick] [--runs N] [--warmup N] [--no-results]
 * </pre>
 */
public final class SchedulerBench {
    static final int[] NODES = {500, 1000, 5000, 10000};
    static final int[] RACKS = {25, 50, 75};
    static final int[] SIZES = {50, 300, 600, 900, 1200};
    /** The target: 5,000 nodes, 1,200 allocations, spread on the rack. */
    static final long TARGET_MS = 50;
    /**
     * The harness times CPU time of the scheduling thread, not wall time: on a shared 2-core machine other work
     * inflates wall time by several times, while the scheduler is single-threaded and does no I/O.
     */
    private static final java.lang.management.ThreadMXBean CPU = java.lang.management.ManagementFactory.getThreadMXBean();

    private SchedulerBench() {
    }

    record Result(int nodes, int racks, int size, boolean spread, double medianMs, double minMs, int placed) {
    }

    public static void main(String[] args) throws Exception {
        List<String> a = Arrays.asList(args);
        boolean quick = a.contains("--quick");
        boolean write = !a.contains("--no-results");
        int runs = a.contains("--runs") ? Integer.parseInt(a.get(a.indexOf("--runs") + 1)) : 5;
        // Evaluations of each cell run and discarded first: the JIT tunes the code to the cell's size (default none).
        int warmup = a.contains("--warmup") ? Integer.parseInt(a.get(a.indexOf("--warmup") + 1)) : 0;
        List<Result> results = new ArrayList<>();
        // Warm the JIT on a mid-sized case before anything is measured.
        for (int i = 0; i < 20; i++) {
            once(1000, 25, 300, true);
            once(1000, 25, 300, false);
        }
        System.out.printf("%6s %6s %6s %7s %10s %10s %7s%n", "nodes", "racks", "allocs", "spread", "median_ms",
                "min_ms", "placed");
        int[] nodes = quick ? new int[] {5000} : NODES;
        int[] racks = quick ? new int[] {25} : RACKS;
        int[] sizes = quick ? new int[] {1200} : SIZES;
        for (int n : nodes) {
            for (int r : racks) {
                for (int s : sizes) {
                    for (boolean spread : new boolean[] {false, true}) {
                        for (int w = 0; w < warmup; w++) {
                            once(n, r, s, spread);
                        }
                        Result res = measure(n, r, s, spread, runs);
                        results.add(res);
                        System.out.printf("%6d %6d %6d %7s %10.1f %10.1f %7d%n", n, r, s, spread, res.medianMs(),
                                res.minMs(), res.placed());
                    }
                }
            }
        }
        if (write) {
            append(Path.of(a.contains("--results") ? a.get(a.indexOf("--results") + 1) : "bench/RESULTS.md"),
                    results, runs);
        }
    }

    static Result measure(int nodes, int racks, int size, boolean spread, int runs) {
        double[] ms = new double[runs];
        int placed = 0;
        for (int i = 0; i < runs; i++) {
            long[] out = once(nodes, racks, size, spread);
            ms[i] = out[0] / 1e6;
            placed = (int) out[1];
        }
        Arrays.sort(ms);
        return new Result(nodes, racks, size, spread, ms[runs / 2], ms[0], placed);
    }

    /** One evaluation on a fresh cluster: {CPU nanoseconds, allocations placed}. */
    static long[] once(int nodes, int racks, int size, boolean spread) {
        BenchState state = new BenchState(cluster(nodes, racks), job(size, spread));
        BenchPlanner planner = new BenchPlanner();
        Evaluation eval = Evaluation.forJob("9a3c53ab-0000-4000-8000-" + String.format("%012d", size), state.job,
                Evaluation.TRIGGER_JOB_REGISTER, 0);
        long start = CPU.getCurrentThreadCpuTime();
        try {
            Schedulers.create(Job.TYPE_SERVICE, state, planner, Clock.systemUTC()).process(eval);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        long elapsed = CPU.getCurrentThreadCpuTime() - start;
        return new long[] {elapsed, planner.placed};
    }

    static List<Node> cluster(int count, int racks) {
        List<Node> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String id = String.format("%08x-0000-4000-8000-%012d", i, i);
            Map<String, String> attrs = new HashMap<>();
            attrs.put("kernel.name", "linux");
            attrs.put("cpu.arch", "amd64");
            attrs.put("driver.raw_exec", "1");
            attrs.put("unique.hostname", "node-" + i);
            Node n = new Node(id, null, "dc1", "node-" + i, null, null, false, attrs,
                    new NodeResources(new NodeResources.Cpu(4000, 4, List.of(0, 1, 2, 3)), null,
                            new NodeResources.Memory(8192), new NodeResources.Disk(100 * 1024), List.of(), null,
                            null, 20000, 32000),
                    new NodeReservedResources(new NodeReservedResources.Cpu(100, List.of()),
                            new NodeResources.Memory(256), new NodeResources.Disk(4096), null),
                    null, Map.of("rack", "r" + (i % racks)), "", Node.DEFAULT_POOL, null, null, Node.ELIGIBLE,
                    Node.STATUS_READY, "", null, 0, null,
                    Map.of("raw_exec", new DriverInfo(Map.of(), true, true, "healthy", null)), null, null, null,
                    null, null, 0, 0, 0, 1, 1);
            out.add(withClass(n));
        }
        return out;
    }

    /** What the server does on register: store the computed class. */
    private static Node withClass(Node n) {
        return new Node(n.id(), null, n.datacenter(), n.name(), null, null, false, n.attributes(), n.nodeResources(),
                n.reservedResources(), null, n.meta(), n.nodeClass(), n.nodePool(), NodeClasses.computedClass(n),
                null, n.schedulingEligibility(), n.status(), "", null, 0, null, n.drivers(), null, null, null, null,
                null, 0, 0, 0, 1, 1);
    }

    static Job job(int count, boolean spread) {
        Task task = new Task("server", "raw_exec", null, null, Map.of("command", "/bin/sleep"), null, null, null,
                null, new Resources(100, null, 100, null, null, null, null, null, null, null), null, null,
                Duration.ofSeconds(5), null, null, null, null, null, null, null, null, false, null, null, null, null,
                null, null, null, null);
        List<Spread> spreads = spread ? List.of(new Spread("${meta.rack}", 100, List.of())) : List.of();
        TaskGroup tg = new TaskGroup("web", count, null, null, List.of(task), spreads, null, null, null, null,
                new EphemeralDisk(false, false, 150), null, null, null, null, null, null, null, null, null, null,
                null, null);
        return new Job(Job.DEFAULT_REGION, Job.DEFAULT_NAMESPACE, "bench", null, "bench", Job.TYPE_SERVICE, 50, false,
                List.of("dc1"), null, null, null, null, List.of(tg), null, null, null, null, null, null, false, null,
                null, null, null, null, null, null, null, Job.STATUS_PENDING, "", false, 0L, 0L, 1L, 1L, 1L, false,
                null, null);
    }

    /** An empty cluster: nodes and the job, no allocations yet. */
    static final class BenchState implements SchedulerState {
        private final List<Node> nodes;
        private final Map<String, Node> byId = new HashMap<>();
        final Job job;

        BenchState(List<Node> nodes, Job job) {
            this.nodes = nodes;
            this.job = job;
            nodes.forEach(n -> byId.put(n.id(), n));
        }

        @Override
        public long index() {
            return 1000;
        }

        @Override
        public Optional<Job> job(String namespace, String jobId) {
            return Optional.of(job);
        }

        @Override
        public List<Node> nodes() {
            return nodes;
        }

        @Override
        public Optional<Node> node(String nodeId) {
            return Optional.ofNullable(byId.get(nodeId));
        }

        @Override
        public List<Allocation> allocsByJob(String namespace, String jobId) {
            return List.of();
        }

        @Override
        public List<Allocation> allocsByNode(String nodeId) {
            return List.of();
        }

        @Override
        public SchedulerConfiguration configuration() {
            return SchedulerConfiguration.DEFAULT;
        }
    }

    /** Accepts every plan as is; counts the placements. */
    static final class BenchPlanner implements Planner {
        int placed;

        @Override
        public PlanResult submitPlan(Plan plan) {
            plan.nodeAllocation().values().forEach(l -> placed += l.size());
            return new PlanResult(Map.of(), plan.nodeAllocation(), 1001, 0);
        }

        @Override
        public SchedulerState refreshState(long minIndex) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void updateEval(Evaluation eval) {
        }

        @Override
        public void createEval(Evaluation eval) {
        }
    }

    /** The target cells (5,000 nodes, 1,200 allocations, spread, any rack count) against the target. */
    static String verdict(List<Result> results) {
        StringBuilder out = new StringBuilder();
        boolean any = false;
        boolean met = true;
        for (Result r : results) {
            if (r.nodes() == 5000 && r.size() == 1200 && r.spread()) {
                out.append(any ? ", " : "").append(String.format(Locale.ROOT, "%.1f ms (%d racks)", r.medianMs(),
                        r.racks()));
                met &= r.medianMs() <= TARGET_MS;
                any = true;
            }
        }
        return any ? out + (met ? " — **met**" : " — **not met**") : "not measured in this run";
    }

    static void append(Path file, List<Result> results, int runs) throws IOException {
        StringBuilder s = new StringBuilder();
        s.append("\n## ")
                .append(ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")))
                .append(" — scheduler: one service evaluation → plan (SchedulerBench)\n\n")
                .append("Produced by `io.caravan.bench.SchedulerBench` (in-process, no agent): Nomad's matrix of nodes ×")
                .append(" racks × job size, with and without `spread { attribute = \"${meta.rack}\" }`. Each cell is")
                .append(" the median (and min) CPU time of the scheduling thread over ").append(runs)
                .append(" evaluations on a fresh, empty cluster, from `Scheduler.process` to the submitted plan (the planner accepts it without applying it),")
                .append(" after a JIT warm-up. Nodes: 4000 MHz, 8 GiB, one DC, computed class set; task: 100 MHz,")
                .append(" 100 MB.\n\n")
                .append("- Machine: ").append(Report.machine()).append(", ").append(System.getProperty("java.vm.name"))
                .append(' ').append(System.getProperty("java.version")).append('\n')
                .append("- Target: 5,000 nodes × 1,200 allocations with spread ≤ ").append(TARGET_MS).append(" ms: ")
                .append(verdict(results)).append("\n\n")
                .append("| nodes | racks | allocs | spread | median ms | min ms | placed |\n")
                .append("|---:|---:|---:|---|---:|---:|---:|\n");
        for (Result r : results) {
            s.append(String.format(Locale.ROOT, "| %d | %d | %d | %s | %.1f | %.1f | %d |%n", r.nodes(), r.racks(),
                    r.size(), r.spread() ? "yes" : "no", r.medianMs(), r.minMs(), r.placed()));
        }
        Files.writeString(file, s.toString(), StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }
}
