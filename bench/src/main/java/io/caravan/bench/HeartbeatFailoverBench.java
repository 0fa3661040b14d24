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
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.caravan.bench.Cluster.Server;

/**
 * Heartbeats through a leader failover: three real servers ({@link Cluster}) and one client-only agent whose plugin
 * directory holds the node simulator (bench/nodesim) with N nodes (default 10,000). Every simulated node registers
 * and heartbeats over the client's RPC connection, as a real client does (the client agent's {@code NodeEndpoint} is
 * the RPC one: heartbeats go to the leader, through a follower if need be), and beats at the TTL the leader gave it
 * ({@code heartbeat_fraction = 1.0}, Nomad's client). Once every node is ready and has had time to beat with the TTL of
 * the full cluster, the leader is killed with kill -9; the new leader must mark no node down or disconnected.
 *
 * <p>The heartbeat limits are scaled down so that a run takes minutes, not the better part of an hour: by default
 * {@code max_heartbeats_per_second = 500} and {@code failover_heartbeat_ttl = "30s"}, i.e. TTLs of 20–40 s for 10,000
 * nodes against Nomad's defaults of 50/s and 5 m (200–400 s): the same ratio of failover TTL to the longest TTL (0.75).
 * {@code --rate} and {@code --failover-ttl} set them; {@code heartbeat_grace} stays Nomad's 10 s.
 *
 * <pre>java -cp bench/target/classes io.caravan.bench.HeartbeatFailoverBench [--nodes 10000] [--rate 500]
 *     [--failover-ttl 30s] [--opts "JVM options"] [--home dir] [--label text] [--no-results]</pre>
 */
public final class HeartbeatFailoverBench {
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();
    private static final Pattern STATUS = Pattern.compile("\"ID\":\"(5e000000-[0-9a-f-]+)\".*?\"Status\":\"(\\w+)\"");
    private static final Pattern MISSED = Pattern.compile("node missed its heartbeat.*");
    private static final Pattern UPDATE_STATUS = Pattern.compile(
            "\"Name\":\"nomad\\.nomad\\.rpc\\.request\",\"Count\":(\\d+)[^}]*\"method\":\"Node\\.UpdateStatus\"");
    private static final double GRACE_SECONDS = 10;
    /** Registrations per second of the simulated nodes: a real fleet does not register in one instant. */
    private static final int REGISTER_RATE = 100;

    public static void main(String[] args) throws Exception {
        int nodes = 10_000;
        double rate = 500;
        String failoverTtl = "30s";
        boolean record = true;
        String label = "";
        String opts = "";
        Path root = Paths.get("").toAbsolutePath();
        Path home = root.resolve("distribution/assembly/target/caravan");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--nodes" -> nodes = Integer.parseInt(args[++i]);
                case "--rate" -> rate = Double.parseDouble(args[++i]);
                case "--failover-ttl" -> failoverTtl = args[++i];
                case "--home" -> home = Path.of(args[++i]).toAbsolutePath();
                case "--label" -> label = args[++i];
                case "--opts" -> opts = args[++i];
                case "--no-results" -> record = false;
                default -> {
                    System.err.println("unknown argument " + args[i]);
                    System.exit(2);
                }
            }
        }
        Path simJar = root.resolve("bench/nodesim/target/io.caravan.bench.nodesim-0.1.0-SNAPSHOT.jar");
        if (!Files.exists(simJar)) {
            throw new IllegalStateException("build the simulator first: mvn -B -o -q package -pl bench/nodesim -am");
        }
        // The longest TTL a node can be given: the scaled base, doubled at most by the stagger.
        double baseSeconds = Math.max(10, nodes / rate);
        double longestTtl = 2 * baseSeconds;
        double failoverSeconds = Double.parseDouble(failoverTtl.replace("s", ""));
        String loadBefore = Report.loadAverage();
        String serverKeys = String.format(Locale.ROOT, "\"max_heartbeats_per_second\": %s, "
                + "\"failover_heartbeat_ttl\": \"%s\"", rate, failoverTtl);
        StringBuilder out = new StringBuilder();
        long started = System.nanoTime();
        String jvmOpts = opts;
        try (Cluster cluster = Cluster.start(home, 3, false, i -> jvmOpts, serverKeys);
             SimClientAgent client = SimClientAgent.start(home, cluster, simJar, "nodes = " + nodes
                     + "\nheartbeat.fraction = 1.0\nregister.per.second = " + REGISTER_RATE + "\n", jvmOpts)) {
            System.out.printf("cluster up, leader server%d; %d simulated nodes registering%n",
                    cluster.leader().index(), nodes);
            long readyAt = awaitReady(cluster.follower(), nodes, Duration.ofMinutes(15));
            System.out.printf("%d nodes ready after %d s%n", nodes, (readyAt - started) / 1_000_000_000L);
            // Leadership may have moved while the nodes registered: the leader of the steady phase is the one now.
            Server leader = cluster.leader();
            Server observer = cluster.servers.stream().filter(s -> s != leader).findFirst().orElseThrow();
            int electionsBefore = elections(cluster);
            // Every node must have beaten once with the full cluster's TTL before the kill: the first ones were told
            // the minimum TTL while the others registered.
            long steadyMs = (long) ((longestTtl + 5) * 1000);
            long cpu0 = StartupBench.cpuMs(cluster.pid(leader));
            long beats0 = updateStatusCalls(leader);
            long t0 = System.nanoTime();
            Thread.sleep(steadyMs);
            double steadySeconds = (System.nanoTime() - t0) / 1e9;
            double leaderCpu = (StartupBench.cpuMs(cluster.pid(leader)) - cpu0) / 1000.0 / steadySeconds;
            double beatsPerSecond = (updateStatusCalls(leader) - beats0) / steadySeconds;
            int downBefore = notReady(observer).size();
            System.out.printf("steady %.0f s: %.0f heartbeat RPCs/s at the leader, leader CPU %.0f %%, %d not ready%n",
                    steadySeconds, beatsPerSecond, leaderCpu * 100, downBefore);

            // On an overloaded machine leadership may move during the steady phase too: the kill is the current
            // leader's, and the elections before it are reported (each one is a failover for the heartbeats).
            int electionsInSteady = elections(cluster) - electionsBefore;
            Server victim = cluster.leader();
            int notReadyAtKill = notReady(observer).size();
            List<Server> rest = cluster.servers.stream().filter(s -> s != victim).toList();
            long killed = System.nanoTime();
            java.time.Instant killedAt = java.time.Instant.now();
            cluster.kill(victim);
            String next = cluster.awaitLeader(rest, victim.rpcAddress());
            long electedMs = (System.nanoTime() - killed) / 1_000_000;
            Server newLeader = cluster.byRpc(next);
            Server watcher = rest.stream().filter(s -> s != newLeader).findFirst().orElseThrow();
            System.out.printf("kill -9 of server%d; server%d leads after %d ms%n", victim.index(), newLeader.index(),
                    electedMs);
            // Long enough for every timer the new leader set to run out, and for every node to beat again after.
            long observeMs = (long) ((Math.max(failoverSeconds, longestTtl) + longestTtl + GRACE_SECONDS + 15) * 1000);
            Set<String> markedDown = new TreeSet<>();
            long cpu1 = StartupBench.cpuMs(cluster.pid(newLeader));
            long beats1 = updateStatusCalls(newLeader);
            long t1 = System.nanoTime();
            while ((System.nanoTime() - t1) / 1_000_000 < observeMs) {
                Thread.sleep(5_000);
                Set<String> now = notReady(watcher);
                markedDown.addAll(now);
                System.out.printf("  +%3d s: %d nodes not ready (%d distinct so far)%n",
                        (System.nanoTime() - killed) / 1_000_000_000L, now.size(), markedDown.size());
            }
            double observeSeconds = (System.nanoTime() - t1) / 1e9;
            int electionsAfter = elections(cluster) - electionsBefore - electionsInSteady - 1; // -1: the kill's own
            double newLeaderCpu = (StartupBench.cpuMs(cluster.pid(newLeader)) - cpu1) / 1000.0 / observeSeconds;
            double beatsAfter = (updateStatusCalls(newLeader) - beats1) / observeSeconds;
            List<String> missedLines = new ArrayList<>();
            for (Server s : rest) {
                for (String line : Files.readAllLines(s.log())) {
                    Matcher m = MISSED.matcher(line);
                    if (m.find() && !loggedBefore(line, killedAt)) {
                        missedLines.add("server" + s.index() + ": " + line.trim());
                    }
                }
            }
            if (!rest.stream().allMatch(s -> alive(cluster, s)) || !client.alive()) {
                throw new IllegalStateException("a process died during the run");
            }
            String when = ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm"));
            out.append("## ").append(when).append(" UTC — heartbeats through a leader failover (HeartbeatFailoverBench")
                    .append(label.isEmpty() ? "" : ", " + label).append(")\n\n");
            out.append("- Machine: ").append(Report.machine()).append('\n');
            out.append("- Load average (1/5/15 min) before: ").append(loadBefore).append(", after: ")
                    .append(Report.loadAverage()).append('\n');
            out.append("- Caravan home: `").append(root.relativize(home.toAbsolutePath()).toString().isEmpty() ? home
                    : home).append("`\n");
            out.append(String.format(Locale.ROOT, "- Three servers (`Cluster`) with `max_heartbeats_per_second = %s`,"
                    + " `failover_heartbeat_ttl = \"%s\"` (heartbeat_grace 10 s, min_heartbeat_ttl 10 s: defaults);"
                    + " one client-only agent running the node simulator: %,d nodes registering and heartbeating over"
                    + " its RPC connection, each beating at the TTL the leader gave it (Nomad's client). TTLs: %.0f–%.0f"
                    + " s; the nodes register at %d/s.%n", rate, failoverTtl, nodes, baseSeconds, longestTtl,
                    REGISTER_RATE));
            out.append("- Extra JVM options of every server and the client agent: ")
                    .append(jvmOpts.isEmpty() ? "none" : "`" + jvmOpts + "`").append('\n');
            out.append("\n| metric | value |\n|---|---:|\n");
            out.append(String.format(Locale.ROOT, "| nodes ready before the kill | %,d (%d not ready) |%n", nodes,
                    downBefore));
            out.append(String.format(Locale.ROOT, "| heartbeat RPCs/s at the leader, steady (%.0f s) | %.0f |%n",
                    steadySeconds, beatsPerSecond));
            out.append(String.format(Locale.ROOT, "| leader CPU, steady (share of one core) | %.0f %% |%n",
                    leaderCpu * 100));
            out.append(String.format(Locale.ROOT, "| kill -9 → both survivors name the new leader | %,d ms |%n",
                    electedMs));
            out.append(String.format(Locale.ROOT, "| heartbeat RPCs/s at the new leader, %.0f s after | %.0f |%n",
                    observeSeconds, beatsAfter));
            out.append(String.format(Locale.ROOT, "| new leader CPU over those %.0f s | %.0f %% |%n", observeSeconds,
                    newLeaderCpu * 100));
            out.append(String.format(Locale.ROOT, "| **nodes marked down or disconnected after the failover** | **%,d**"
                    + " (target 0) |%n", markedDown.size()));
            out.append(String.format(Locale.ROOT, "| \"node missed its heartbeat\" lines in the survivors' logs after the"
                    + " kill | %,d |%n",
                    missedLines.size()));
            out.append(String.format(Locale.ROOT, "| leader changes during the steady phase, before the kill (load) | %d"
                    + " (nodes not ready at the kill: %d) |%n", electionsInSteady, notReadyAtKill));
            out.append(String.format(Locale.ROOT, "| other leader changes after the kill's (load) | %d |%n",
                    Math.max(0, electionsAfter)));
            if (!missedLines.isEmpty()) {
                out.append("\nFirst of them:\n\n```\n");
                missedLines.stream().limit(5).forEach(l -> out.append(l).append('\n'));
                out.append("```\n");
            }
            out.append('\n');
        }
        System.out.println();
        System.out.print(out);
        if (record) {
            Report.append(root.resolve("bench/RESULTS.md"), out.toString());
            System.out.println("Appended to bench/RESULTS.md");
        }
    }

    /** How many times a server of the cluster took up leader duties so far (from their logs). */
    private static int elections(Cluster cluster) throws IOException {
        int n = 0;
        for (Server s : cluster.servers) {
            for (String line : Files.readAllLines(s.log())) {
                if (line.contains("Leader duties started")) {
                    n++;
                }
            }
        }
        return n;
    }

    /** Whether a log line's timestamp (ISO-8601 first) is before {@code t}; lines without one are not. */
    private static boolean loggedBefore(String line, java.time.Instant t) {
        try {
            return java.time.Instant.parse(line.substring(0, line.indexOf(' '))).isBefore(t);
        } catch (RuntimeException none) {
            return false;
        }
    }

    private static boolean alive(Cluster cluster, Server s) {
        return ProcessHandle.of(cluster.pid(s)).map(ProcessHandle::isAlive).orElse(false);
    }

    /** Polls until {@code nodes} simulated nodes are ready; returns when. */
    private static long awaitReady(Server s, int nodes, Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        int last = -1;
        while (System.nanoTime() < deadline) {
            String body = get(s, "/v1/nodes");
            int ready = 0;
            Matcher m = STATUS.matcher(body);
            while (m.find()) {
                if ("ready".equals(m.group(2))) {
                    ready++;
                }
            }
            if (ready >= nodes) {
                return System.nanoTime();
            }
            if (ready != last) {
                System.out.printf("  %d nodes ready%n", ready);
                last = ready;
            }
            Thread.sleep(3_000);
        }
        throw new IllegalStateException("the simulated nodes were not all ready within " + limit);
    }

    /** The simulated nodes whose status is anything but ready (down, disconnected, initializing). */
    private static Set<String> notReady(Server s) {
        Set<String> out = new TreeSet<>();
        Matcher m = STATUS.matcher(get(s, "/v1/nodes"));
        while (m.find()) {
            if (!"ready".equals(m.group(2))) {
                out.add(m.group(1));
            }
        }
        return out;
    }

    /** How many {@code Node.UpdateStatus} calls this server has served ({@code nomad.nomad.rpc.request}). */
    private static long updateStatusCalls(Server s) {
        Matcher m = UPDATE_STATUS.matcher(get(s, "/v1/metrics"));
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    private static String get(Server s, String path) {
        try {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(s.base() + path))
                    .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? r.body() : "";
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }
}
