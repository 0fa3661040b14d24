package io.caravan.consensus.internal;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;

import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.retry.RetryPolicies;

/** Helpers shared by the tests and the benchmark. */
final class TestNodes {
    /** The cluster secret (the gossip key) of the tests' groups: they run with mutual TLS on the Raft port. */
    static final byte[] SECRET = RaftSettings.randomSecret();

    private TestNodes() {
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        }
    }

    static RaftSettings single(String id, int port, Path dir, long snapshotThreshold) {
        return RaftSettings.single(id, "127.0.0.1:" + port, dir, snapshotThreshold, Duration.ofSeconds(5));
    }

    static RaftSettings withGhostPeer(String id, int port, int ghostPort, Path dir, Duration leaderWait) {
        return new RaftSettings(new Peer(id, "127.0.0.1:" + port), List.of(new Peer("ghost", "127.0.0.1:" + ghostPort)),
                dir, RaftSettings.DEFAULT_SNAPSHOT_THRESHOLD, RaftSettings.DEFAULT_TRAILING_LOGS, leaderWait, SECRET);
    }

    /** A Ratis client of the group of {@code peers} over gRPC with {@code parameters} (TLS or none), no retries. */
    static RaftClient client(List<Peer> peers, Parameters parameters) throws Exception {
        RaftGroup group = RaftGroup.valueOf(RaftNode.GROUP_ID, peers.stream()
                .map(p -> RaftPeer.newBuilder().setId(p.id()).setAddress(p.address()).build()).toList());
        RaftSettings any = new RaftSettings(peers.get(0), peers, Path.of("unused"),
                RaftSettings.DEFAULT_SNAPSHOT_THRESHOLD, RaftSettings.DEFAULT_TRAILING_LOGS, Duration.ofSeconds(5), null);
        return Tccl.withBundleLoader(() -> RaftClient.newBuilder().setRaftGroup(group)
                .setProperties(RaftNode.properties(any)).setParameters(parameters)
                .setRetryPolicy(RetryPolicies.noRetry()).build());
    }

    /** Waits until {@code condition} holds, at most {@code wait}; fails the test naming {@code what} otherwise. */
    static void await(Duration wait, BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline >= 0) {
                throw new AssertionError("not within " + wait + ": " + what);
            }
            Thread.sleep(10);
        }
    }
}
