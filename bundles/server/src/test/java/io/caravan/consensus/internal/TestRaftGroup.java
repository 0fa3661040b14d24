package io.caravan.consensus.internal;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.caravan.consensus.CommandHandler;
import io.caravan.consensus.RaftConfiguration;
import io.caravan.consensus.Replicator;

/**
 * Real Raft servers of the consensus bundle (its {@link RaftNode}, with the production properties and mutual TLS on
 * loopback) for other bundles' {@code *ClusterTest}s, which cannot reach its private package otherwise: this test
 * class shares the package on the test class path. One server per handler, all in one group.
 */
public final class TestRaftGroup implements AutoCloseable {
    private final List<RaftNode> nodes = new ArrayList<>();

    private TestRaftGroup() {
    }

    /** Starts one server per handler, each in a directory of its own under {@code dir}; does not wait for a leader. */
    public static TestRaftGroup start(Path dir, List<? extends CommandHandler> handlers) throws IOException {
        List<Peer> peers = new ArrayList<>();
        for (int i = 0; i < handlers.size(); i++) {
            peers.add(new Peer("s" + i, "127.0.0.1:" + freePort()));
        }
        byte[] secret = RaftSettings.randomSecret();
        TestRaftGroup group = new TestRaftGroup();
        try {
            for (int i = 0; i < handlers.size(); i++) {
                Peer self = peers.get(i);
                RaftNode node = new RaftNode(new RaftSettings(self, peers, dir.resolve(self.id()),
                        RaftSettings.DEFAULT_SNAPSHOT_THRESHOLD, RaftSettings.DEFAULT_TRAILING_LOGS,
                        Duration.ofSeconds(5), secret), handlers.get(i), System::currentTimeMillis);
                group.nodes.add(node);
                node.start();
            }
        } catch (IOException | RuntimeException e) {
            group.close();
            throw e;
        }
        return group;
    }

    /** The Raft log of server {@code i} (in the order of the handlers). */
    public Replicator server(int i) {
        return nodes.get(i);
    }

    /** The Raft configuration as server {@code i} serves it (no gossip: RPC addresses unknown). */
    public RaftConfiguration configuration(int i) {
        return new RaftServices(nodes.get(i), id -> java.util.Optional.empty(), (enabled, minQuorum) -> { });
    }

    /** Whether every server has a leader and has applied what was committed, within {@code wait}. */
    public boolean awaitReady(Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        for (RaftNode node : nodes) {
            if (!node.awaitReady(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())))) {
                return false;
            }
        }
        return true;
    }

    /** Stops server {@code i}, as its process ending would (its log and state stay on disk). */
    public void stop(int i) {
        nodes.get(i).close();
    }

    @Override
    public void close() {
        nodes.forEach(RaftNode::close);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
