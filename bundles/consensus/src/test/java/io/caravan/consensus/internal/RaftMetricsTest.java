package io.caravan.consensus.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import io.caravan.metrics.MetricSink;
import io.caravan.metrics.TelemetryOptions;
import io.caravan.metrics.Timing;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Three real Ratis servers: the leader's and a follower's Raft metrics under Nomad's names. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RaftMetricsTest {
    @TempDir
    Path root;

    /** What one sampling pass reported: gauges and counters by name, timers by name. */
    static final class Recorded implements MetricSink {
        final Map<String, Double> values = new TreeMap<>();
        final Map<String, Timing.Snapshot> timers = new TreeMap<>();

        @Override
        public void gauge(String name, Map<String, String> labels, double value) {
            values.put(name, value);
        }

        @Override
        public void counter(String name, Map<String, String> labels, double total) {
            values.put(name, total);
        }

        @Override
        public void timer(String name, Map<String, String> labels, Timing.Snapshot timing) {
            timers.put(name, timing);
        }

        @Override
        public TelemetryOptions options() {
            return TelemetryOptions.DEFAULTS;
        }
    }

    @Test
    void theLeaderAndFollowersReportRolesIndexesWritesAndContact() throws Exception {
        try (ThreeServers servers = new ThreeServers("m", (self, group) -> new RaftSettings(self, group,
                root.resolve(self.id()), RaftSettings.DEFAULT_SNAPSHOT_THRESHOLD, RaftSettings.DEFAULT_TRAILING_LOGS,
                Duration.ofSeconds(5), TestNodes.SECRET))) {
            servers.awaitReady();
            servers.replicate(3);
            RaftNode leader = servers.leader();
            Recorded led = new Recorded();
            leader.metrics().sample(led);
            assertEquals(1.0, led.values.get("nomad.raft.state.leader"), led.values.toString());
            assertEquals(3.0, led.values.get("nomad.raft.apply"), "the writes submitted here");
            assertEquals(3, led.timers.get("nomad.raft.commitTime").count());
            assertTrue(led.values.get("nomad.raft.appliedIndex") >= 3, led.values.toString());
            assertTrue(led.values.get("nomad.raft.lastIndex") >= led.values.get("nomad.raft.appliedIndex"));
            assertEquals(2, led.timers.get("nomad.raft.leader.lastContact").count(), "one per follower");

            RaftNode follower = servers.nodes.stream().filter(n -> n != leader).findFirst().orElseThrow();
            Recorded followed = new Recorded();
            follower.metrics().sample(followed);
            assertEquals(1.0, followed.values.get("nomad.raft.state.follower"), followed.values.toString());
            assertEquals(0.0, followed.values.get("nomad.raft.state.leader"));
            assertEquals(0.0, followed.values.get("nomad.raft.apply"));
        }
    }
}
