package io.caravan.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Leader failover of a real three-server cluster: three {@code bin/caravan agent} processes on loopback
 * (bootstrap_expect = 3, retry_join), then, each round, kill -9 of the leader and the time until a surviving
 * server reports a new leader and until the next write (a job registration sent to a survivor) is committed. The
 * killed server is started again on its data between rounds. Issue target: kill -9 to next committed write ≤ 2 s.
 *
 * <pre>java -cp bench/target/classes io.caravan.bench.ClusterFailoverBench distribution/assembly/target/caravan 5</pre>
 */
public final class ClusterFailoverBench {
    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

    private record Server(int index, int http, int rpc, int serf, Path config, Path log) {
        String base() {
            return "http://127.0.0.1:" + http;
        }
    }

    public static void main(String[] args) throws Exception {
        Path home = Path.of(args.length > 0 ? args[0] : "distribution/assembly/target/caravan");
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        Path dir = Files.createTempDirectory("caravan-failover-");
        List<Server> servers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            int[] p = StartupBench.freePorts(3);
            servers.add(new Server(i, p[0], p[1], p[2], dir.resolve("server" + i + ".json"), dir.resolve("server" + i + ".log")));
        }
        String join = servers.stream().map(s -> "\"127.0.0.1:" + s.serf() + "\"").collect(Collectors.joining(","));
        for (Server s : servers) {
            Files.writeString(s.config(), """
                    {"name": "server%d", "data_dir": "%s", "bind_addr": "127.0.0.1",
                     "advertise": {"http": "127.0.0.1", "rpc": "127.0.0.1", "serf": "127.0.0.1"},
                     "ports": {"http": %d, "rpc": %d, "serf": %d},
                     "server": {"enabled": true, "bootstrap_expect": 3,
                                "server_join": {"retry_join": [%s], "retry_interval": "1s"}}}
                    """.formatted(s.index(), dir.resolve("data" + s.index()), s.http(), s.rpc(), s.serf(), join));
        }
        Process[] processes = new Process[3];
        try {
            for (Server s : servers) {
                processes[s.index()] = start(home, s);
            }
            long formed = System.nanoTime();
            String leader = awaitLeader(servers, null);
            System.out.printf("cluster formed, leader %s (%d ms after the last start)%n", leader,
                    (System.nanoTime() - formed) / 1_000_000);
            System.out.println("| round | new leader seen (ms) | next write committed (ms) |");
            System.out.println("|---:|---:|---:|");
            for (int round = 1; round <= rounds; round++) {
                Server victim = byRpc(servers, leader);
                List<Server> rest = servers.stream().filter(s -> s != victim).toList();
                long killed = System.nanoTime();
                processes[victim.index()].destroyForcibly();
                processes[victim.index()].waitFor(30, TimeUnit.SECONDS);
                String next = awaitLeader(rest, leader);
                long elected = System.nanoTime();
                awaitWrite(rest.get(0), "probe-" + round);
                long written = System.nanoTime();
                System.out.printf("| %d | %d | %d |%n", round, (elected - killed) / 1_000_000,
                        (written - killed) / 1_000_000);
                processes[victim.index()] = start(home, victim);
                awaitLeader(List.of(victim), null);
                leader = next;
            }
        } finally {
            for (Process p : processes) {
                if (p != null) {
                    p.destroy();
                }
            }
            for (Process p : processes) {
                if (p != null && !p.waitFor(20, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            }
            try (Stream<Path> paths = Files.walk(dir)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static Process start(Path home, Server s) throws IOException {
        return new ProcessBuilder(home.resolve("bin/caravan").toString(), "agent", "-config", s.config().toString())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(s.log().toFile())).start();
    }

    private static Server byRpc(List<Server> servers, String rpc) {
        return servers.stream().filter(s -> rpc.equals("127.0.0.1:" + s.rpc())).findFirst()
                .orElseThrow(() -> new IllegalStateException("leader " + rpc + " is not one of the servers"));
    }

    /** Polls until every given server names the same leader, other than {@code not}; returns it. */
    private static String awaitLeader(List<Server> servers, String not) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            List<String> leaders = servers.stream().map(ClusterFailoverBench::leaderOf).distinct().toList();
            if (leaders.size() == 1 && !leaders.get(0).isEmpty() && !leaders.get(0).equals(not)) {
                return leaders.get(0);
            }
            Thread.sleep(10);
        }
        throw new IllegalStateException("no leader within " + WAIT);
    }

    private static String leaderOf(Server s) {
        try {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(s.base() + "/v1/status/leader"))
                    .timeout(Duration.ofSeconds(1)).build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? r.body().replace("\"", "").trim() : "";
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    private static void awaitWrite(Server s, String jobId) throws InterruptedException {
        String job = """
                {"Job": {"ID": "%s", "Type": "batch", "Datacenters": ["dc1"], "TaskGroups": [{"Name": "g",
                  "Tasks": [{"Name": "t", "Driver": "raw_exec", "Config": {"command": "/bin/true"}}]}]}}
                """.formatted(jobId);
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<Void> r = HTTP.send(HttpRequest.newBuilder(URI.create(s.base() + "/v1/jobs"))
                        .PUT(HttpRequest.BodyPublishers.ofString(job)).timeout(Duration.ofSeconds(10)).build(),
                        HttpResponse.BodyHandlers.discarding());
                if (r.statusCode() == 200) {
                    return;
                }
            } catch (IOException retry) {
                // the server is electing or forwarding
            }
            Thread.sleep(10);
        }
        throw new IllegalStateException("no write committed within " + WAIT);
    }
}
