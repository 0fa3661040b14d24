package io.caravan.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Issue 15's deployment benchmark: one dev agent with the node simulator (bench/nodesim, which reports an allocation
 * of a deployment healthy as it reports it running), a service job of {@code count} allocations with
 * {@code update { max_parallel }}; version 0 is deployed, then version 1 rolls out. Measures the time from each
 * register to its deployment being successful, and the agent's CPU during the rolling update: in total, per
 * allocation transition (each replaced allocation is placed, reported running and healthy, and its predecessor
 * stopped: three transitions), and by thread. The deployment watcher runs on the agent's shared timer thread
 * ({@code caravan-timer}, shared with heartbeat timers, the other leader duties and every bundle's timers), so that
 * thread's CPU is an upper bound of the watcher's own cost; the Raft writes it causes land on the Raft threads.
 *
 * <pre>java -cp bench/target/classes io.caravan.bench.DeploymentBench [count] [nodes] [max_parallel] [--no-results]</pre>
 */
public final class DeploymentBench {
    private static final Pattern ID = Pattern.compile("\"ID\":\"([^\"]+)\"");
    private static final Pattern STATUS = Pattern.compile("\"Status\":\"([^\"]+)\"");

    public static void main(String[] args) throws Exception {
        List<String> positional = new ArrayList<>();
        boolean record = true;
        String javaOpts = "-Xmx6g";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--no-results" -> record = false;
                case "--opts" -> javaOpts = args[++i];
                default -> positional.add(args[i]);
            }
        }
        int count = positional.size() > 0 ? Integer.parseInt(positional.get(0)) : 1000;
        int nodes = positional.size() > 1 ? Integer.parseInt(positional.get(1)) : 5000;
        int maxParallel = positional.size() > 2 ? Integer.parseInt(positional.get(2)) : 100;
        Path root = Paths.get("").toAbsolutePath();
        Path home = root.resolve("distribution/assembly/target/caravan");
        Path simJar = root.resolve("bench/nodesim/target/io.caravan.bench.nodesim-0.1.0-SNAPSHOT.jar");
        if (!Files.exists(simJar)) {
            throw new IllegalStateException("build the simulator first (bench/run does): mvn -q -pl bench/nodesim -am package");
        }
        Path plugins = Files.createTempDirectory("caravan-bench-plugins-");
        Files.copy(simJar, plugins.resolve(simJar.getFileName()));
        Files.writeString(plugins.resolve("io.caravan.bench.nodesim.cfg"), "nodes = " + nodes + "\n");
        String config = "\"plugin_dir\": \"" + plugins + "\", \"log_level\": \"INFO\"";
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        String loadBefore = Report.loadAverage();
        StringBuilder out = new StringBuilder();
        try (DevAgent agent = DevAgent.start(home, config, javaOpts)) {
            System.out.println("agent pid " + agent.pid() + " on " + agent.base);
            SchedulingScenarioBench.awaitNodes(http, agent.base, nodes, Duration.ofMinutes(10));
            System.out.println(nodes + " nodes ready");

            long cpu0 = StartupBench.cpuMs(agent.pid());
            double first = deploy(http, agent.base, count, maxParallel, 0, null);
            long cpu1 = StartupBench.cpuMs(agent.pid());
            System.out.printf("version 0: deployment successful after %.1f s%n", first);
            String firstId = latestId(http, agent.base);

            Map<String, Long> threads0 = threadCpuMs(agent.pid());
            long cpu2 = StartupBench.cpuMs(agent.pid());
            double rolling = deploy(http, agent.base, count, maxParallel, 1, firstId);
            long cpu3 = StartupBench.cpuMs(agent.pid());
            Map<String, Long> threads1 = threadCpuMs(agent.pid());
            System.out.printf("version 1: rolling update successful after %.1f s%n", rolling);

            long rollingCpu = cpu3 - cpu2;
            long transitions = 3L * count;
            Map<String, Long> byThread = new TreeMap<>();
            threads1.forEach((name, ms) -> {
                long d = ms - threads0.getOrDefault(name, 0L);
                if (d > 0) {
                    byThread.merge(name, d, Long::sum);
                }
            });
            long leader = byThread.getOrDefault("caravan-timer", 0L);
            out.append("## ").append(java.time.ZonedDateTime.now(java.time.ZoneOffset.UTC)
                            .format(java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")))
                    .append(" — rolling update (DeploymentBench)\n\n")
                    .append(String.format("A service job of %,d allocations with `update { max_parallel = %d, "
                            + "health_check = \"task_states\" }` on %,d simulated nodes (bench/nodesim reports each "
                            + "allocation of a deployment running and healthy at once), one dev agent with Raft on. "
                            + "Agent JVM options: `%s`.%n%n", count, maxParallel, nodes, javaOpts))
                    .append("| measure | value |\n|---|---|\n")
                    .append(String.format("| version 0: register → deployment successful | %.1f s (agent CPU %,d ms) |%n",
                            first, cpu1 - cpu0))
                    .append(String.format("| version 1: register → rolling update successful | %.1f s |%n", rolling))
                    .append(String.format("| agent CPU during the rolling update | %,d ms |%n", rollingCpu))
                    .append(String.format("| agent CPU per allocation transition (%,d: place, running+healthy, stop "
                            + "old) | %.2f ms |%n", transitions, (double) rollingCpu / transitions))
                    .append(String.format("| `caravan-timer` thread (watcher + every shared timer) | %,d ms (%.1f %% "
                            + "of the agent's) |%n", leader, rollingCpu == 0 ? 0 : 100.0 * leader / rollingCpu))
                    .append("\nAgent CPU by thread during the rolling update (ms, threads over 1 %): ");
            List<String> parts = new ArrayList<>();
            byThread.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                    .filter(e -> e.getValue() * 100 >= rollingCpu)
                    .forEach(e -> parts.add("`" + e.getKey() + "` " + e.getValue()));
            out.append(String.join(", ", parts)).append(".\n\nMachine: ").append(Report.machine())
                    .append("; load before/after: ").append(loadBefore).append(" / ").append(Report.loadAverage())
                    .append(".\n\n");
        }
        System.out.print(out);
        if (record) {
            Report.append(root.resolve("bench/RESULTS.md"), out.toString());
            System.out.println("Appended to bench/RESULTS.md");
        }
    }

    /** Registers {@code version} and waits for a deployment other than {@code previous} to succeed; seconds taken. */
    private static double deploy(HttpClient http, String base, int count, int maxParallel, int version,
                                 String previous) throws Exception {
        long start = System.nanoTime();
        HttpResponse<String> put = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/jobs"))
                .PUT(HttpRequest.BodyPublishers.ofString(job(count, maxParallel, version))).build(),
                HttpResponse.BodyHandlers.ofString());
        if (put.statusCode() != 200) {
            throw new IllegalStateException("register failed: " + put.body());
        }
        long deadline = start + Duration.ofMinutes(30).toNanos();
        long lastPrint = 0;
        while (System.nanoTime() < deadline) {
            String body = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/job/rolling/deployment")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            String id = first(ID, body);
            String status = first(STATUS, body);
            if (id != null && !id.equals(previous)) {
                if ("successful".equals(status)) {
                    return (System.nanoTime() - start) / 1e9;
                }
                if ("failed".equals(status) || "cancelled".equals(status)) {
                    throw new IllegalStateException("deployment " + status + ": " + body);
                }
            }
            if (System.nanoTime() - lastPrint > 5e9) {
                System.out.println("  " + status + " " + Stream.of("PlacedAllocs", "HealthyAllocs")
                        .map(f -> f + "=" + first(Pattern.compile("\"" + f + "\":(\\d+)"), body)).toList());
                lastPrint = System.nanoTime();
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException("deployment of version " + version + " did not succeed in 30 minutes");
    }

    private static String latestId(HttpClient http, String base) throws Exception {
        return first(ID, http.send(HttpRequest.newBuilder(URI.create(base + "/v1/job/rolling/deployment")).build(),
                HttpResponse.BodyHandlers.ofString()).body());
    }

    private static String first(Pattern p, String body) {
        Matcher m = p.matcher(body == null ? "" : body);
        return m.find() ? m.group(1) : null;
    }

    static String job(int count, int maxParallel, int version) {
        return """
                {"Job": {"ID": "rolling", "Type": "service", "Datacenters": ["dc1"],
                  "Constraints": [{"LTarget": "${meta.sim}", "RTarget": "true", "Operand": "="}],
                  "TaskGroups": [{"Name": "web", "Count": %d,
                    "Update": {"MaxParallel": %d, "HealthCheck": "task_states", "MinHealthyTime": 0,
                      "HealthyDeadline": 300000000000, "ProgressDeadline": 600000000000},
                    "Tasks": [{"Name": "server", "Driver": "raw_exec", "Env": {"VERSION": "%d"},
                      "Config": {"command": "/bin/sleep", "args": ["3600"]},
                      "Resources": {"CPU": 10, "MemoryMB": 16}}]}]}}
                """.formatted(count, maxParallel, version);
    }

    /** CPU milliseconds by thread name (threads of one name summed), from /proc/PID/task/TID/stat. */
    static Map<String, Long> threadCpuMs(long pid) throws IOException {
        Map<String, Long> out = new TreeMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            for (Path task : tasks.toList()) {
                try {
                    String stat = Files.readString(task.resolve("stat"));
                    String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
                            .replaceAll("-\\d+$", "-N");
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    out.merge(name, (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10, Long::sum);
                } catch (IOException | RuntimeException gone) {
                    // the thread ended meanwhile
                }
            }
        }
        return out;
    }
}
