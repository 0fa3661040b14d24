package io.caravan.consensus.internal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.apache.ratis.server.RaftServerConfigKeys;

/**
 * Not a test: what a consistent read's wait ({@link RaftNode#awaitConsistentRead}) costs on the leader and on a
 * follower of three servers on loopback with mutual TLS, with the leader's lease (as configured) and without it (a
 * heartbeat round per read). A stale read waits for nothing. Run it as {@link RaftBenchmark}; argument: [samples].
 */
public final class ReadIndexBenchmark {
    private ReadIndexBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int samples = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
        for (boolean lease : new boolean[] {true, false}) {
            Path dir = Files.createTempDirectory("read-index-bench");
            try {
                run(dir, samples, lease);
            } finally {
                try (Stream<Path> files = Files.walk(dir)) {
                    files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        }
        System.exit(0);   // Ratis leaves non-daemon threads behind for a while
    }

    private static void run(Path dir, int samples, boolean lease) throws Exception {
        List<Peer> peers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            peers.add(new Peer("r" + i, "127.0.0.1:" + TestNodes.freePort()));
        }
        List<RaftNode> nodes = new ArrayList<>();
        try {
            for (Peer self : peers) {
                RaftNode node = new RaftNode(new RaftSettings(self, peers, dir.resolve(self.id()),
                        RaftSettings.DEFAULT_SNAPSHOT_THRESHOLD, RaftSettings.DEFAULT_TRAILING_LOGS,
                        Duration.ofSeconds(5), TestNodes.SECRET), new CountingHandler(false),
                        System::currentTimeMillis, p -> RaftServerConfigKeys.Read.setLeaderLeaseEnabled(p, lease));
                nodes.add(node);
                node.start();
            }
            for (RaftNode node : nodes) {
                if (!node.awaitReady(Duration.ofSeconds(60))) {
                    throw new IllegalStateException("no leader");
                }
            }
            RaftNode leader = nodes.stream().filter(RaftNode::isLeader).findFirst().orElseThrow();
            RaftNode follower = nodes.stream().filter(n -> n != leader).findFirst().orElseThrow();
            for (int i = 0; i < 100; i++) {
                leader.submit(CountingHandler.command(i)).toCompletableFuture().get(10, TimeUnit.SECONDS);
            }
            for (RaftNode node : List.of(leader, follower)) {
                for (int i = 0; i < 1000; i++) {   // warm-up
                    node.awaitConsistentRead().toCompletableFuture().get(10, TimeUnit.SECONDS);
                }
                long[] latencies = new long[samples];
                for (int i = 0; i < samples; i++) {
                    long s = System.nanoTime();
                    node.awaitConsistentRead().toCompletableFuture().get(10, TimeUnit.SECONDS);
                    latencies[i] = System.nanoTime() - s;
                }
                Arrays.sort(latencies);
                System.out.printf("lease %-5s %-8s %d sequential consistent-read waits: p50 %.3f ms, p99 %.3f ms, "
                                + "max %.3f ms%n", lease, node == leader ? "leader" : "follower", samples,
                        latencies[samples / 2] / 1e6, latencies[samples * 99 / 100] / 1e6,
                        latencies[samples - 1] / 1e6);
            }
        } finally {
            nodes.forEach(RaftNode::close);
        }
    }
}
