package io.caravan.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A C1M-class scenario on one dev agent: the node simulator bundle (bench/nodesim) registers {@code nodes} simulated
 * clients through the real server endpoints and heartbeats them; then {@code jobs} service jobs of {@code count}
 * allocations each, every one with a constraint (as C1M had: {@code ${meta.sim} = true}), are registered over the
 * HTTP API by 8 concurrent submitters. Measures the time from the first register until every allocation is placed
 * and reported running, placements per second, and the agent's heap and RSS. Raft is on (the dev agent's one-server
 * group, fsync'd log).
 *
 * <p>With {@code --servers N} (N > 1) it runs against N server agents in N processes instead (the followers
 * replicating, writes through the leader), the simulator in a client agent of its own whose nodes talk to them over
 * RPC, as clients do; CPU is then every process's, the simulator's included.
 *
 * <pre>bench/run SchedulingScenarioBench [jobs] [count] [nodes] [--servers N] [--no-results]
 *     [--opts "more agent JVM options"]</pre>
 */
public final class SchedulingScenarioBench {
    private static final Pattern RUNNING = Pattern.compile("\"Running\":(\\d+)");
    private static final Pattern QUEUED = Pattern.compile("\"Queued\":(\\d+)");

    public static void main(String[] args) throws Exception {
        List<String> positional = new ArrayList<>();
        boolean record = true;
        int servers = 1;
        String javaOpts = "-Xmx6g -XX:TieredStopAtLevel=4";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--no-results" -> record = false;
                case "--servers" -> servers = Integer.parseInt(args[++i]);
                case "--opts" -> javaOpts += " " + args[++i]; // after the defaults, so they win
                default -> positional.add(args[i]);
            }
        }
        int jobs = positional.size() > 0 ? Integer.parseInt(positional.get(0)) : 100;
        int count = positional.size() > 1 ? Integer.parseInt(positional.get(1)) : 1000;
        int nodes = positional.size() > 2 ? Integer.parseInt(positional.get(2)) : 5000;
        Path root = Paths.get("").toAbsolutePath();
        Path home = root.resolve("distribution/assembly/target/caravan");
        Path simJar = root.resolve("bench/nodesim/target/io.caravan.bench.nodesim-0.1.0-SNAPSHOT.jar");
        if (!Files.exists(simJar)) {
            throw new IllegalStateException("build the simulator first (bench/run does): mvn -q -pl bench/nodesim -am package");
        }
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        String loadBefore = Report.loadAverage();
        StringBuilder out = new StringBuilder();
        try (Target agent = servers > 1 ? Target.cluster(home, servers, simJar, nodes, javaOpts)
                : Target.devAgent(home, simJar, nodes, javaOpts)) {
            System.out.println(agent.describe());
            Instant t0 = Instant.now();
            awaitNodes(http, agent.base(), nodes, Duration.ofMinutes(10));
            double registerSeconds = Duration.between(t0, Instant.now()).toMillis() / 1000.0;
            System.out.printf("%d nodes ready after %.1f s%n", nodes, registerSeconds);

            long cpu0 = agent.cpuMs();
            java.util.Map<String, Long> threads0 = agent.threadCpuMs();
            ExecutorService submitters = Executors.newFixedThreadPool(8);
            AtomicInteger failures = new AtomicInteger();
            long start = System.nanoTime();
            List<Future<?>> submitted = new ArrayList<>();
            for (int j = 0; j < jobs; j++) {
                final int n = j;
                submitted.add(submitters.submit(() -> {
                    HttpRequest put = HttpRequest.newBuilder(URI.create(agent.base() + "/v1/jobs"))
                            .PUT(HttpRequest.BodyPublishers.ofString(job("c1m-" + n, count))).build();
                    try {
                        if (http.send(put, HttpResponse.BodyHandlers.discarding()).statusCode() != 200) {
                            failures.incrementAndGet();
                        }
                    } catch (Exception e) {
                        failures.incrementAndGet();
                    }
                }));
            }
            for (Future<?> f : submitted) {
                f.get();
            }
            submitters.shutdown();
            double submitSeconds = (System.nanoTime() - start) / 1e9;
            long target = (long) jobs * count;
            PipelineTimings timings = new PipelineTimings(http, agent.leaderBase());
            long[] progress;
            try {
                progress = awaitRunning(http, agent.base(), target, Duration.ofMinutes(30));
            } finally {
                timings.close();
            }
            double totalSeconds = (System.nanoTime() - start) / 1e9;
            long cpuMs = agent.cpuMs() - cpu0;
            java.util.Map<String, Long> threads1 = agent.threadCpuMs();
            List<java.util.Map.Entry<String, Long>> byThread = new ArrayList<>();
            threads1.forEach((name, ms) -> {
                long d = ms - threads0.getOrDefault(name, 0L);
                if (d > 0) {
                    byThread.add(java.util.Map.entry(name, d));
                }
            });
            byThread.sort(java.util.Map.Entry.<String, Long>comparingByValue().reversed());
            long rssKb = agent.rssKb();
            String heap = agent.heapInfo();
            out.append("## ").append(java.time.ZonedDateTime.now(java.time.ZoneOffset.UTC)
                            .format(java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")))
                    .append(" — scheduling scenario (SchedulingScenarioBench, C1M-class)\n\n")
                    .append(String.format("%,d service jobs × %,d allocations (each job constrained to `${meta.sim} = "
                            + "true`) on %,d simulated nodes (bench/nodesim: real NodeEndpoint, heartbeats, allocations "
                            + "reported running), %s. Agent JVM options: `%s`.%n%n",
                            jobs, count, nodes, servers > 1 ? servers + " server agents in " + servers + " processes, "
                                    + "the simulator in a client agent of its own (over RPC); CPU, and CPU by thread, "
                                    + "of all of them; RSS and heap of the leader"
                                    : "one dev agent with Raft on", javaOpts))
                    .append("| measure | value |\n|---|---|\n")
                    .append(String.format("| nodes registered and ready | %.1f s |%n", registerSeconds))
                    .append(String.format("| %,d registers submitted (8 submitters) | %.1f s, %d failed |%n", jobs,
                            submitSeconds, failures.get()))
                    .append(String.format("| all %,d allocations running | %s |%n", target,
                            progress[0] >= target ? String.format("%.1f s", totalSeconds)
                                    : "NOT reached: " + progress[0] + " running, " + progress[1] + " queued"))
                    .append(String.format("| placements/s (running ÷ total time) | %,.0f |%n",
                            progress[0] / totalSeconds))
                    .append(String.format("| agent CPU, register → all running | %,d ms (%.1f ms per 1,000 "
                            + "placements: the figure load hardly changes) |%n", cpuMs, cpuMs * 1000.0 / target))
                    .append(String.format("| agent CPU by thread (top 10) | %s |%n", String.join(", ",
                            byThread.stream().limit(10).map(e -> "`" + e.getKey() + "` " + e.getValue() + " ms")
                                    .toList())))
                    .append(String.format("| scheduling pipeline, per call: mean ms (calls) | %s |%n", timings))
                    .append(String.format("| agent RSS at the end | %,d MiB |%n", rssKb >> 10))
                    .append(String.format("| agent heap at the end | %,d MiB used |%n",
                            DevAgent.heapUsedKb(heap) >> 10))
                    .append("\nMachine: ").append(Report.machine()).append("; load before/after: ").append(loadBefore)
                    .append(" / ").append(Report.loadAverage()).append(".\n\n");
        }
        System.out.print(out);
        if (record) {
            Report.append(root.resolve("bench/RESULTS.md"), out.toString());
            System.out.println("Appended to bench/RESULTS.md");
        }
    }

    /**
     * A C1M job: placement only. {@code MaxParallel = 0} keeps it without a deployment (a service job without
     * {@code update} gets Nomad's default strategy and so a deployment, whose health tracking DeploymentBench measures).
     */
    static String job(String id, int count) {
        return """
                {"Job": {"ID": "%s", "Type": "service", "Datacenters": ["dc1"],
                  "Update": {"MaxParallel": 0},
                  "Constraints": [{"LTarget": "${meta.sim}", "RTarget": "true", "Operand": "="}],
                  "TaskGroups": [{"Name": "web", "Count": %d,
                    "Tasks": [{"Name": "server", "Driver": "raw_exec",
                      "Config": {"command": "/bin/sleep", "args": ["3600"]},
                      "Resources": {"CPU": 10, "MemoryMB": 16}}]}]}}
                """.formatted(id, count);
    }

    static void awaitNodes(HttpClient http, String base, int nodes, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            String body = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/nodes?filter="
                            + java.net.URLEncoder.encode("Status == \"ready\" and Meta.sim == \"true\"",
                            java.nio.charset.StandardCharsets.UTF_8))).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            int ready = body.split("\"ID\"", -1).length - 1;
            if (ready >= nodes) {
                return;
            }
            Thread.sleep(500);
        }
        throw new IllegalStateException("simulated nodes did not all become ready");
    }

    /** Polls the job list's summaries until {@code target} allocations run; returns {running, queued}. */
    private static long[] awaitRunning(HttpClient http, String base, long target, Duration timeout)
            throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        long running = 0;
        long queued = 0;
        long lastPrint = 0;
        while (System.nanoTime() < deadline) {
            String body = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/jobs?prefix=c1m-")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            running = sum(RUNNING, body);
            queued = sum(QUEUED, body);
            if (running >= target) {
                break;
            }
            if (System.nanoTime() - lastPrint > 5e9) {
                System.out.printf("  %,d running, %,d queued%n", running, queued);
                lastPrint = System.nanoTime();
            }
            Thread.sleep(250);
        }
        return new long[] {running, queued};
    }

    /** What the scenario runs against: one dev agent, or servers with the simulator in a client agent. */
    private interface Target extends AutoCloseable {
        /** Where jobs are registered and read (the leader of a cluster). */
        String base();

        /** Whose {@code /v1/metrics} has the schedulers' timings: the leader's. */
        String leaderBase() throws Exception;

        long cpuMs();

        java.util.Map<String, Long> threadCpuMs() throws java.io.IOException;

        long rssKb();

        String heapInfo();

        String describe();

        static Target devAgent(Path home, Path simJar, int nodes, String javaOpts) throws Exception {
            Path plugins = Files.createTempDirectory("caravan-bench-plugins-");
            Files.copy(simJar, plugins.resolve(simJar.getFileName()));
            Files.writeString(plugins.resolve("io.caravan.bench.nodesim.cfg"), "nodes = " + nodes + "\n");
            DevAgent agent = DevAgent.start(home, "\"plugin_dir\": \"" + plugins + "\", \"log_level\": \"INFO\"",
                    javaOpts);
            return new Target() {
                @Override
                public String base() {
                    return agent.base;
                }

                @Override
                public String leaderBase() {
                    return agent.base;
                }

                @Override
                public long cpuMs() {
                    return StartupBench.cpuMs(agent.pid());
                }

                @Override
                public java.util.Map<String, Long> threadCpuMs() throws java.io.IOException {
                    return DeploymentBench.threadCpuMs(agent.pid());
                }

                @Override
                public long rssKb() {
                    return StartupBench.statusKb(agent.pid(), "VmRSS");
                }

                @Override
                public String heapInfo() {
                    return agent.heapInfo();
                }

                @Override
                public String describe() {
                    return "agent pid " + agent.pid() + " on " + agent.base;
                }

                @Override
                public void close() throws Exception {
                    agent.close();
                    DevAgent.deleteTree(plugins);
                }
            };
        }

        static Target cluster(Path home, int servers, Path simJar, int nodes, String javaOpts) throws Exception {
            Cluster cluster = Cluster.start(home, servers, false, i -> javaOpts);
            SimClientAgent sim;
            try {
                sim = SimClientAgent.start(home, cluster, simJar, "nodes = " + nodes + "\n", javaOpts);
            } catch (Exception e) {
                cluster.close();
                throw e;
            }
            return new Target() {
                private Cluster.Server leader() {
                    try {
                        return cluster.leader();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException(e);
                    }
                }

                @Override
                public String base() {
                    return leader().base();
                }

                @Override
                public String leaderBase() {
                    return leader().base();
                }

                @Override
                public long cpuMs() {
                    return cluster.cpuMs() + StartupBench.cpuMs(sim.pid());
                }

                @Override
                public java.util.Map<String, Long> threadCpuMs() throws java.io.IOException {
                    java.util.Map<String, Long> all = new java.util.TreeMap<>(cluster.threadCpuMs());
                    DeploymentBench.threadCpuMs(sim.pid()).forEach((name, ms) -> all.merge("client " + name, ms,
                            Long::sum));
                    return all;
                }

                @Override
                public long rssKb() {
                    return StartupBench.statusKb(cluster.pid(leader()), "VmRSS");
                }

                @Override
                public String heapInfo() {
                    return DevAgent.heapInfo(cluster.pid(leader()));
                }

                @Override
                public String describe() {
                    return servers + " servers, leader server" + leader().index() + " on " + leader().base()
                            + "; simulator client pid " + sim.pid();
                }

                @Override
                public void close() throws Exception {
                    try {
                        sim.close();
                    } finally {
                        cluster.close();
                    }
                }
            };
        }
    }

    /**
     * The scheduler workers' and the plan applier's timings over the run (Nomad's {@code nomad.worker.*} and
     * {@code nomad.plan.*} samples, which the agent reports as totals since it started): read before and after.
     */
    static final class PipelineTimings implements AutoCloseable {
        private static final Pattern SAMPLE = Pattern.compile(
                "\"Name\":\\s*\"nomad\\.nomad\\.((?:worker|plan)\\.[^\"]+)\",\\s*\"Count\":\\s*(\\d+),\\s*"
                        + "\"Sum\":\\s*([0-9.Ee+-]+)");
        private final HttpClient http;
        private final String base;
        private final java.util.Map<String, double[]> before;
        private java.util.Map<String, double[]> after = java.util.Map.of();

        PipelineTimings(HttpClient http, String base) {
            this.http = http;
            this.base = base;
            this.before = read();
        }

        private java.util.Map<String, double[]> read() {
            java.util.Map<String, double[]> sums = new java.util.TreeMap<>();
            try {
                String body = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/metrics")).build(),
                        HttpResponse.BodyHandlers.ofString()).body();
                Matcher m = SAMPLE.matcher(body);
                while (m.find()) {
                    double[] s = sums.computeIfAbsent(m.group(1), k -> new double[2]);
                    s[0] += Long.parseLong(m.group(2));
                    s[1] += Double.parseDouble(m.group(3));
                }
            } catch (Exception e) {
                // no timings: the row says so
            }
            return sums;
        }

        @Override
        public void close() {
            after = read();
        }

        @Override
        public String toString() {
            List<String> parts = new ArrayList<>();
            after.forEach((name, s) -> {
                double[] b = before.getOrDefault(name, new double[2]);
                double count = s[0] - b[0];
                if (count > 0) {
                    parts.add(String.format("%s %.1f (%,.0f)", name, (s[1] - b[1]) / count, count));
                }
            });
            return parts.isEmpty() ? "(none read)" : String.join(", ", parts);
        }
    }

    private static long sum(Pattern p, String body) {
        long total = 0;
        Matcher m = p.matcher(body);
        while (m.find()) {
            total += Long.parseLong(m.group(1));
        }
        return total;
    }
}
