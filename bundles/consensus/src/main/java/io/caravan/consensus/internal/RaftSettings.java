package io.caravan.consensus.internal;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import io.caravan.tls.ReloadableTls;

/**
 * Everything a {@link RaftNode} needs, validated; built from {@link ServerPidConfig} or directly by tests.
 *
 * @param secret what the Raft port's mutual TLS binds certificates to ({@link PeerCertificate}): the gossip key, or a
 *     random one for a group of one that nobody joins; null for plaintext (a cluster without {@code encrypt})
 * @param tls the agent's TLS when {@code tls.rpc} is on: the Raft port uses its certificate instead of the secret's
 *     ({@link RaftTls#parameters(ReloadableTls)}); null otherwise
 * @param snapshotInterval Nomad's {@code raft_snapshot_interval}: at most one snapshot per interval, once
 *     {@code snapshotThreshold} entries were applied since the last ({@link Duration#ZERO}: at the threshold)
 */
record RaftSettings(Peer self, List<Peer> peers, Path dir, long snapshotThreshold, long trailingLogs,
        Duration leaderWait, byte[] secret, ReloadableTls tls, Duration snapshotInterval) {

    static final long DEFAULT_SNAPSHOT_THRESHOLD = 8192;   // Nomad's raft_snapshot_threshold default
    static final long DEFAULT_TRAILING_LOGS = 10240;       // Nomad's raft_trailing_logs default
    static final long DEFAULT_LEADER_WAIT_MS = 5000;       // Nomad's RPC hold timeout
    static final String DEFAULT_SNAPSHOT_INTERVAL = "120s"; // Nomad's raft_snapshot_interval default (its Raft's)

    RaftSettings {
        if (snapshotThreshold < 1) {
            throw new IllegalArgumentException("raft.snapshot.threshold must be at least 1, was " + snapshotThreshold);
        }
        if (trailingLogs < 0) {
            throw new IllegalArgumentException("raft.trailing.logs must not be negative, was " + trailingLogs);
        }
        if (snapshotInterval == null || snapshotInterval.isNegative()) {
            throw new IllegalArgumentException("raft.snapshot.interval must not be negative, was " + snapshotInterval);
        }
        peers = withSelf(self, peers);
        secret = secret == null ? null : secret.clone();
    }

    /** Snapshots at the threshold, with no interval between them (the tests' settings). */
    RaftSettings(Peer self, List<Peer> peers, Path dir, long snapshotThreshold, long trailingLogs,
                 Duration leaderWait, byte[] secret, ReloadableTls tls) {
        this(self, peers, dir, snapshotThreshold, trailingLogs, leaderWait, secret, tls, Duration.ZERO);
    }

    /** Without the agent's TLS. */
    RaftSettings(Peer self, List<Peer> peers, Path dir, long snapshotThreshold, long trailingLogs,
                 Duration leaderWait, byte[] secret) {
        this(self, peers, dir, snapshotThreshold, trailingLogs, leaderWait, secret, null);
    }

    /** The same server with another group (this server is added if missing). */
    RaftSettings withPeers(List<Peer> group) {
        return new RaftSettings(self, group, dir, snapshotThreshold, trailingLogs, leaderWait, secret, tls,
                snapshotInterval);
    }

    /** A secret of the gossip key's size that only this process knows: its Raft port accepts no one. */
    static byte[] randomSecret() {
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        return secret;
    }

    /** A one-server group: the path dev mode takes, and the one the tests use. */
    static RaftSettings single(String nodeId, String address, Path dir, long snapshotThreshold, Duration leaderWait) {
        return new RaftSettings(new Peer(nodeId, address), List.of(), dir, snapshotThreshold, DEFAULT_TRAILING_LOGS,
                leaderWait, randomSecret());
    }

    static RaftSettings fromConfig(ServerPidConfig config) {
        return fromConfig(config, null);
    }

    /** @param tls the agent's TLS when {@code tls.rpc} is on, else null */
    static RaftSettings fromConfig(ServerPidConfig config, ReloadableTls tls) {
        if (config.node_id().isBlank()) {
            throw new IllegalArgumentException("io.caravan.server: node.id is required (the Raft peer id)");
        }
        if (config.raft_addr().isBlank()) {
            throw new IllegalArgumentException("io.caravan.server: raft.addr is required (host:port for Raft)");
        }
        Path dir;
        if (!config.raft_dir().isBlank()) {
            dir = Path.of(config.raft_dir());
        } else if (!config.data_dir().isBlank()) {
            dir = Path.of(config.data_dir(), "server", "raft");   // where Nomad keeps raft/
        } else {
            throw new IllegalArgumentException("io.caravan.server: raft.dir or data.dir is required");
        }
        List<Peer> peers = new ArrayList<>();
        for (String spec : config.raft_peers()) {
            peers.add(Peer.parse(spec));
        }
        byte[] secret;
        if (!config.encrypt().isBlank()) {
            secret = gossipKey(config.encrypt());
        } else {
            secret = config.dev_mode() ? randomSecret() : null;   // a dev agent's group is itself alone
        }
        Duration snapshotInterval;
        try {
            snapshotInterval = io.caravan.api.GoDuration.parse(config.raft_snapshot_interval());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("io.caravan.server: raft.snapshot.interval: " + e.getMessage());
        }
        return new RaftSettings(new Peer(config.node_id(), config.raft_addr()), peers, dir,
                config.raft_snapshot_threshold(), config.raft_trailing_logs(),
                Duration.ofMillis(config.raft_leader_wait_ms()), secret, tls, snapshotInterval);
    }

    private static byte[] gossipKey(String base64) {
        try {
            return Base64.getDecoder().decode(base64.trim());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("io.caravan.server: encrypt is not valid base64");
        }
    }

    private static List<Peer> withSelf(Peer self, List<Peer> peers) {
        List<Peer> all = new ArrayList<>();
        all.add(self);
        for (Peer p : peers) {
            if (p.id().equals(self.id())) {
                if (!p.address().equals(self.address())) {
                    throw new IllegalArgumentException("raft.peers gives " + p + " but this server binds "
                            + self.address());
                }
            } else {
                all.add(p);
            }
        }
        return List.copyOf(all);
    }
}
