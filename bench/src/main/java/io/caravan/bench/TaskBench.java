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
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The client's costs on a dev agent: idle RSS; then one job of {@code count} raw_exec {@code sleep} tasks — time
 * from each allocation's creation (placed) to its task's {@code StartedAt} (running), p50/p99/max, and the memory
 * the running tasks cost: the RSS and proportional set size (Pss) of every process in their process groups beyond
 * the task itself (the wrapper), per task, and the agent's RSS growth. Issue targets: placed → running p50 ≤ 100 ms,
 * ≤ 2 MB per task, client idle RSS ≤ 100 MB.
 *
 * <pre>java -cp "bench/target/classes:$(cat bench/target/cp.txt)" io.caravan.bench.TaskBench [count] [--no-results]</pre>
 */
public final class TaskBench {
    private static final ObjectMapper JSON = new ObjectMapper();

    public static void main(String[] args) throws Exception {
        int count = 200;
        boolean record = true;
        for (String a : args) {
            if (a.equals("--no-results")) {
                record = false;
            } else {
                count = Integer.parseInt(a);
            }
        }
        Path root = Paths.get("").toAbsolutePath();
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        StringBuilder out = new StringBuilder();
        try (DevAgent agent = DevAgent.start(root.resolve("distribution/assembly/target/caravan"),
                "\"log_level\": \"INFO\"")) {
            awaitNode(http, agent.base);
            Thread.sleep(10_000);
            long idleRss = StartupBench.statusKb(agent.pid(), "VmRSS");
            String job = """
                    {"Job": {"ID": "sleepers", "Datacenters": ["dc1"], "TaskGroups": [{"Name": "g", "Count": %d,
                      "Tasks": [{"Name": "sleep", "Driver": "raw_exec",
                        "Config": {"command": "/bin/sleep", "args": ["600"]},
                        "Resources": {"CPU": 10, "MemoryMB": 10}}]}]}}
                    """.formatted(count);
            send(http, HttpRequest.newBuilder(URI.create(agent.base + "/v1/jobs"))
                    .PUT(HttpRequest.BodyPublishers.ofString(job)).build());
            long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
            List<Long> latenciesMs = new ArrayList<>();
            List<String> allocIds = new ArrayList<>();
            while (System.nanoTime() < deadline) {
                JsonNode allocs = JSON.readTree(send(http, HttpRequest.newBuilder(
                        URI.create(agent.base + "/v1/job/sleepers/allocations")).build()));
                latenciesMs.clear();
                allocIds.clear();
                for (JsonNode a : allocs) {
                    JsonNode started = a.path("TaskStates").path("sleep").path("StartedAt");
                    if (a.get("ClientStatus").asText().equals("running") && started.isTextual()) {
                        long created = a.get("CreateTime").asLong() / 1_000_000;
                        latenciesMs.add(Instant.parse(started.asText()).toEpochMilli() - created);
                        allocIds.add(a.get("ID").asText());
                    }
                }
                if (latenciesMs.size() >= count) {
                    break;
                }
                Thread.sleep(500);
            }
            List<Long> singleMs = singleStarts(http, agent.base, 20);
            Thread.sleep(5_000); // let the agent settle after the burst
            long busyRss = StartupBench.statusKb(agent.pid(), "VmRSS");
            long[] overhead = wrapperMemoryKb(agent.dir);
            Collections.sort(latenciesMs);
            send(http, HttpRequest.newBuilder(URI.create(agent.base + "/v1/job/sleepers?purge=true")).DELETE()
                    .build());
            // Tasks outlive their agent by design: stop them before the agent goes.
            long stopBy = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (wrapperMemoryKb(agent.dir)[2] > 0 && System.nanoTime() < stopBy) {
                Thread.sleep(500);
            }
            out.append("## ").append(java.time.ZonedDateTime.now(java.time.ZoneOffset.UTC)
                            .format(java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")))
                    .append(" — client tasks (TaskBench)\n\n")
                    .append(String.format("One dev agent (server and client in one JVM), one job of %d raw_exec "
                            + "`sleep 600` tasks.%n%n| measure | value | target |%n|---|---|---|%n", count))
                    .append(String.format("| agent RSS idle (10 s after the node is ready) | %,d MiB | client ≤ 100 MB |%n",
                            idleRss >> 10))
                    .append(String.format("| tasks running | %d of %d | |%n", latenciesMs.size(), count))
                    .append(String.format("| placed → running, one allocation at a time (20 jobs): p50 / max | "
                            + "%s / %s ms | p50 ≤ 100 ms |%n", pct(singleMs, 50), pct(singleMs, 100)))
                    .append(String.format("| placed → running, %d at once: p50 / p99 / max | %s / %s / %s ms | |%n",
                            count, pct(latenciesMs, 50), pct(latenciesMs, 99), pct(latenciesMs, 100)))
                    .append(String.format("| per-task helper processes: RSS / Pss per task | %,d / %,d KiB | ≤ 2 MB |%n",
                            overhead[0] / Math.max(1, overhead[2]), overhead[1] / Math.max(1, overhead[2])))
                    .append(String.format("| agent RSS growth with %d tasks running | %,d MiB (%,d KiB per task) | |%n",
                            count, (busyRss - idleRss) >> 10, (busyRss - idleRss) / Math.max(1, count)))
                    .append("\nPer-task helpers are the processes of each task's group other than the task itself ")
                    .append("(the exit-recording shell). Machine: ").append(Report.machine()).append(".\n\n");
        }
        System.out.print(out);
        if (record) {
            Report.append(root.resolve("bench/RESULTS.md"), out.toString());
        }
    }

    /** Jobs of one short batch task, one after another: each allocation's creation → its task's StartedAt. */
    private static List<Long> singleStarts(HttpClient http, String base, int jobs) throws Exception {
        List<Long> ms = new ArrayList<>();
        for (int i = 0; i < jobs; i++) {
            String id = "single-" + i;
            send(http, HttpRequest.newBuilder(URI.create(base + "/v1/jobs")).PUT(HttpRequest.BodyPublishers.ofString("""
                    {"Job": {"ID": "%s", "Type": "batch", "Datacenters": ["dc1"], "TaskGroups": [{"Name": "g",
                      "Tasks": [{"Name": "t", "Driver": "raw_exec", "Config": {"command": "/bin/true"},
                        "Resources": {"CPU": 10, "MemoryMB": 10}}]}]}}
                    """.formatted(id))).build());
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (System.nanoTime() < deadline) {
                JsonNode allocs = JSON.readTree(send(http, HttpRequest.newBuilder(
                        URI.create(base + "/v1/job/" + id + "/allocations")).build()));
                JsonNode started = allocs.path(0).path("TaskStates").path("t").path("StartedAt");
                if (started.isTextual()) {
                    ms.add(Instant.parse(started.asText()).toEpochMilli()
                            - allocs.get(0).get("CreateTime").asLong() / 1_000_000);
                    break;
                }
                Thread.sleep(50);
            }
        }
        Collections.sort(ms);
        return ms;
    }

    private static String send(HttpClient http, HttpRequest request) throws IOException, InterruptedException {
        return http.send(request, HttpResponse.BodyHandlers.ofString()).body();
    }

    private static void awaitNode(HttpClient http, String base) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        while (System.nanoTime() < deadline) {
            if (send(http, HttpRequest.newBuilder(URI.create(base + "/v1/nodes")).build()).contains("\"ready\"")) {
                return;
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("no ready node");
    }

    private static String pct(List<Long> sorted, int p) {
        if (sorted.isEmpty()) {
            return "-";
        }
        int i = Math.min(sorted.size() - 1, (int) Math.ceil(p / 100.0 * sorted.size()) - 1);
        return Long.toString(sorted.get(Math.max(0, i)));
    }

    /**
     * {RSS, Pss, tasks} summed over the wrapper processes: every process whose command line is a task wrapper
     * ({@code caravan-task}) under this agent's directory, i.e. each task's exit-recording shell (the {@code sleep}
     * itself is the workload, not overhead).
     */
    private static long[] wrapperMemoryKb(Path dataDir) throws IOException {
        long rss = 0;
        long pss = 0;
        long tasks = 0;
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path p : (Iterable<Path>) procs::iterator) {
                String name = p.getFileName().toString();
                if (!name.chars().allMatch(Character::isDigit)) {
                    continue;
                }
                String cmdline;
                try {
                    cmdline = Files.readString(p.resolve("cmdline")).replace('\0', ' ');
                } catch (IOException gone) {
                    continue;
                }
                if (cmdline.contains("caravan-task") && cmdline.contains(dataDir.toString())
                        && !cmdline.startsWith("setsid") && !cmdline.startsWith("env ")) {
                    rss += Math.max(0, StartupBench.statusKb(Long.parseLong(name), "VmRSS"));
                    pss += smapsPss(p);
                    tasks++;
                }
            }
        }
        return new long[] {rss, pss, tasks};
    }

    private static long smapsPss(Path proc) {
        try {
            for (String line : Files.readAllLines(proc.resolve("smaps_rollup"))) {
                if (line.startsWith("Pss:")) {
                    return Long.parseLong(line.substring(4).replace("kB", "").trim());
                }
            }
        } catch (IOException | NumberFormatException gone) {
            // not readable: counted as 0
        }
        return 0;
    }
}
