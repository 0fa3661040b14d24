package io.caravan.consensus.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class RaftSettingsTest {

    /** A ServerPidConfig as DS would build it: the given keys (by element name), defaults for the rest. */
    private static ServerPidConfig config(Map<String, Object> values) {
        return (ServerPidConfig) Proxy.newProxyInstance(ServerPidConfig.class.getClassLoader(),
                new Class<?>[] {ServerPidConfig.class},
                (proxy, method, args) -> values.getOrDefault(method.getName(), method.getDefaultValue()));
    }

    @Test
    void defaultsToAOneServerGroupUnderTheDataDir() {
        RaftSettings s = RaftSettings.fromConfig(config(Map.of(
                "node_id", "abc", "raft_addr", "127.0.0.1:4647", "data_dir", "/var/caravan")));
        assertEquals(new Peer("abc", "127.0.0.1:4647"), s.self());
        assertEquals(List.of(s.self()), s.peers());
        assertEquals(Path.of("/var/caravan/server/raft"), s.dir());
        assertEquals(8192, s.snapshotThreshold());
        assertEquals(10240, s.trailingLogs());
        assertEquals(Duration.ofSeconds(5), s.leaderWait());
        assertEquals(Duration.ofSeconds(120), s.snapshotInterval(), "Nomad's raft_snapshot_interval default");
    }

    @Test
    void readsPeersAndRaftDir() {
        RaftSettings s = RaftSettings.fromConfig(config(Map.of(
                "node_id", "a", "raft_addr", "10.0.0.1:4647", "raft_dir", "/r",
                "raft_peers", new String[] {"b=10.0.0.2:4647", "a=10.0.0.1:4647"},
                "raft_snapshot_threshold", 100L, "raft_snapshot_interval", "5s")));
        assertEquals(List.of(new Peer("a", "10.0.0.1:4647"), new Peer("b", "10.0.0.2:4647")), s.peers());
        assertEquals(Path.of("/r"), s.dir());
        assertEquals(100, s.snapshotThreshold());
        assertEquals(Duration.ofSeconds(5), s.snapshotInterval());
        assertEquals(Duration.ofSeconds(5), s.withPeers(List.of()).snapshotInterval(), "kept by withPeers");
        assertEquals("10.0.0.2", s.peers().get(1).host());
        assertEquals(4647, s.peers().get(1).port());
    }

    @Test
    void theRaftSecretIsTheGossipKeyARandomOneInDevModeAndNoneOtherwise() {
        byte[] key = new byte[32];
        key[0] = 7;
        Map<String, Object> base = Map.of("node_id", "a", "raft_addr", "10.0.0.1:4647", "data_dir", "/d");
        RaftSettings withKey = RaftSettings.fromConfig(config(with(base, "encrypt",
                Base64.getEncoder().encodeToString(key))));
        assertArrayEquals(key, withKey.secret());
        assertArrayEquals(key, withKey.withPeers(List.of(new Peer("b", "10.0.0.2:4647"))).secret(),
                "kept by withPeers");

        byte[] dev1 = RaftSettings.fromConfig(config(with(base, "dev_mode", true))).secret();
        byte[] dev2 = RaftSettings.fromConfig(config(with(base, "dev_mode", true))).secret();
        assertEquals(32, dev1.length);
        assertFalse(Arrays.equals(dev1, dev2), "a dev agent's secret is its own");

        assertNull(RaftSettings.fromConfig(config(base)).secret(), "no key: plaintext");
        assertThrows(IllegalArgumentException.class,
                () -> RaftSettings.fromConfig(config(with(base, "encrypt", "not base64!"))));
    }

    private static Map<String, Object> with(Map<String, Object> base, String key, Object value) {
        Map<String, Object> m = new HashMap<>(base);
        m.put(key, value);
        return m;
    }

    @Test
    void rejectsMissingOrMalformedSettings() {
        assertThrows(IllegalArgumentException.class,
                () -> RaftSettings.fromConfig(config(Map.of("raft_addr", "h:1", "data_dir", "/d"))));
        assertThrows(IllegalArgumentException.class,
                () -> RaftSettings.fromConfig(config(Map.of("node_id", "a", "data_dir", "/d"))));
        assertThrows(IllegalArgumentException.class,
                () -> RaftSettings.fromConfig(config(Map.of("node_id", "a", "raft_addr", "h:1"))));
        assertThrows(IllegalArgumentException.class,
                () -> RaftSettings.fromConfig(config(Map.of("node_id", "a", "raft_addr", "no-port", "data_dir", "/d"))));
        assertThrows(IllegalArgumentException.class, () -> RaftSettings.fromConfig(config(Map.of(
                "node_id", "a", "raft_addr", "h:1", "data_dir", "/d", "raft_peers", new String[] {"a=h:2"}))));
        assertThrows(IllegalArgumentException.class, () -> Peer.parse("h:1"));
    }
}
