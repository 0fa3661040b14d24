package io.caravan.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import io.caravan.bench.Cluster.Server;

/**
 * Leader failover of a real three-server cluster: three {@code bin/caravan agent} processes on loopback
 * (bootstrap_expect = 3, retry_join; see {@link Cluster}), then, each round, kill -9 of the leader and the time until a
 * surviving server reports a new leader and until the next write (a job registration sent to a survivor) is
 * committed. The killed server is started again on its data between rounds. Issue target: kill -9 to next committed
 * write ≤ 2 s.
 *
 * <pre>java -cp bench/target/classes io.caravan.bench.ClusterFailoverBench distribution/assembly/target/caravan 5</pre>
 */
public final class ClusterFailoverBench {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

    public static void main(String[] args) throws Exception {
        Path home = Path.of(args.length > 0 ? args[0] : "distribution/assembly/target/caravan");
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        long starting = System.nanoTime();
        try (Cluster cluster = Cluster.start(home, 3, false, i -> "")) {
            String leader = cluster.awaitLeader(cluster.servers, null);
            System.out.printf("cluster formed, leader %s (%d ms after the first start)%n", leader,
                    (System.nanoTime() - starting) / 1_000_000);
            System.out.println("| round | new leader seen (ms) | next write committed (ms) |");
            System.out.println("|---:|---:|---:|");
            for (int round = 1; round <= rounds; round++) {
                Server victim = cluster.byRpc(leader);
                List<Server> rest = cluster.servers.stream().filter(s -> s != victim).toList();
                long killed = System.nanoTime();
                cluster.kill(victim);
                String next = cluster.awaitLeader(rest, leader);
                long elected = System.nanoTime();
                awaitWrite(rest.get(0), "probe-" + round);
                long written = System.nanoTime();
                System.out.printf("| %d | %d | %d |%n", round, (elected - killed) / 1_000_000,
                        (written - killed) / 1_000_000);
                cluster.start(victim);
                cluster.awaitLeader(List.of(victim), null);
                leader = next;
            }
        }
    }

    private static void awaitWrite(Server s, String jobId) throws InterruptedException {
        String job = """
                {"Job": {"ID": "%s", "Type": "batch", "Datacenters": ["dc1"], "TaskGroups": [{"Name": "g",
                  "Tasks": [{"Name": "t", "Driver": "raw_exec", "Config": {"command": "/bin/true"}}]}]}}
                """.formatted(jobId);
        long deadline = System.nanoTime() + Cluster.WAIT.toNanos();
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
        throw new IllegalStateException("no write committed within " + Cluster.WAIT);
    }
}
