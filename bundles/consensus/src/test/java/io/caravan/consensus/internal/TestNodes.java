package io.caravan.consensus.internal;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

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
}
