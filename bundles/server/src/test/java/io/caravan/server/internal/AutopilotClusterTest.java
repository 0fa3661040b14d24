package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.api.json.NomadJson;
import io.caravan.consensus.RaftConfiguration;
import io.caravan.consensus.internal.TestRaftGroup;
import io.caravan.membership.Member;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Autopilot's view of three servers over real Raft: all healthy with a failure tolerance of one; a stopped follower
 * turns unhealthy (the leader stops hearing from it) and the tolerance drops to zero. And the configuration's
 * check-and-set, as applied by every replica.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class AutopilotClusterTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private final List<ServerState> states = List.of(new ServerState(), new ServerState(), new ServerState());

    @AfterEach
    void stop() {
        states.forEach(ServerState::deactivate);
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting until " + what);
            Thread.sleep(100);
        }
    }

    /** The gossip pool as three alive servers (s0..s2, the test group's ids) show it. */
    private static List<Member> alive() {
        return IntStream.range(0, 3).mapToObj(i -> new Member("server-" + i + ".global", "127.0.0.1:" + (4648 + i),
                Member.Status.ALIVE, Map.of("id", "s" + i, "role", "nomad", "build", "1.9.0"), 1)).toList();
    }

    @Test
    void threeServersAreHealthyWithAToleranceOfOneUntilOneStops() throws Exception {
        try (TestRaftGroup group = TestRaftGroup.start(dir, states)) {
            assertTrue(group.awaitReady(WAIT), "a leader");
            int leader = IntStream.range(0, 3).filter(i -> group.server(i).isLeader()).findFirst().orElseThrow();
            RaftConfiguration raft = group.configuration(leader);
            Autopilot.Stability stability = new Autopilot.Stability();
            AtomicReference<Autopilot.HealthReply> last = new AtomicReference<>();
            group.server(leader).submit(CommandCodec.encode(new Command.AutopilotConfigUpdate(
                    AutopilotConfig.DEFAULT, false, 0))).toCompletableFuture().get(30, TimeUnit.SECONDS);

            await("three healthy servers", () -> {
                last.set(Autopilot.health(Autopilot.config(states.get(leader).store().snapshot()), raft.servers(),
                        raft.progress(), raft.term(), alive(), stability, Instant.now()));
                return last.get().healthy();
            });
            Autopilot.HealthReply reply = last.get();
            assertEquals(3, reply.servers().size());
            assertEquals(3, reply.servers().stream().filter(Autopilot.ServerHealth::healthy).count());
            assertEquals(1, reply.failureTolerance());
            assertEquals(1, reply.servers().stream().filter(Autopilot.ServerHealth::leader).count());
            long term = raft.term();
            assertTrue(reply.servers().stream().allMatch(s -> s.lastTerm() == term && s.lastIndex() > 0
                    && s.voter() && s.serfStatus().equals("alive") && !s.stableSince().startsWith("0001")));

            // Nomad's JSON names.
            JsonNode json = NomadJson.mapper().valueToTree(reply);
            assertTrue(json.has("Healthy") && json.has("FailureTolerance"), json.toString());
            for (String field : List.of("ID", "Name", "Address", "SerfStatus", "Version", "Leader", "LastContact",
                    "LastTerm", "LastIndex", "Healthy", "Voter", "StableSince")) {
                assertTrue(json.get("Servers").get(0).has(field), field + " in " + json);
            }

            int follower = (leader + 1) % 3;
            group.stop(follower);
            await("the stopped follower is unhealthy", () -> {
                last.set(Autopilot.health(AutopilotConfig.DEFAULT, raft.servers(), raft.progress(), raft.term(),
                        alive(), stability, Instant.now()));
                return !last.get().healthy();
            });
            assertEquals(0, last.get().failureTolerance());
            Autopilot.ServerHealth stopped = last.get().servers().stream()
                    .filter(s -> s.id().equals("s" + follower)).findFirst().orElseThrow();
            assertFalse(stopped.healthy());
            assertEquals(Autopilot.ZERO_TIME, stopped.stableSince());
        }
    }

    @Test
    void theConfigurationIsWrittenWithCheckAndSet() {
        ServerState server = states.get(0);
        Command.Result first = CommandCodec.decodeResult(server.apply(1, 1_000, CommandCodec.encode(
                new Command.AutopilotConfigUpdate(new AutopilotConfig(false, "1s", 10, 3, "10s", false, false, false,
                        0, 0), true, 0))));
        assertEquals(0, first.errorCode());
        AutopilotConfig stored = Autopilot.config(server.store().snapshot());
        assertFalse(stored.cleanupDeadServers());
        assertEquals(1, stored.modifyIndex());
        Command.Result stale = CommandCodec.decodeResult(server.apply(2, 1_000, CommandCodec.encode(
                new Command.AutopilotConfigUpdate(AutopilotConfig.DEFAULT, true, 0))));
        assertEquals(409, stale.errorCode());
        assertEquals(3, Autopilot.config(server.store().snapshot()).minQuorum());

        JsonNode json = NomadJson.mapper().valueToTree(stored);
        assertEquals("1s", json.get("LastContactThreshold").asText());
        assertFalse(json.get("CleanupDeadServers").asBoolean());
        assertTrue(json.has("MaxTrailingLogs") && json.has("ServerStabilizationTime") && json.has("MinQuorum")
                && json.has("ModifyIndex"), json.toString());
        assertEquals("200ms", new AutopilotConfig(true, "200000000", 0, 0, null, false, false, false, 0, 0)
                .validated().lastContactThreshold());
    }

    @Test
    void theAgentsAutopilotBlockIsTheConfigurationUntilOneIsWritten() {
        AutopilotConfig fromAgent = Autopilot.fromAgent(Map.of("autopilot.cleanup.dead.servers", false,
                "autopilot.last.contact.threshold", "500ms", "autopilot.max.trailing.logs", 100L, "name", "x"));
        assertFalse(fromAgent.cleanupDeadServers());
        assertEquals("500ms", fromAgent.lastContactThreshold());
        assertEquals(100, fromAgent.maxTrailingLogs());
        assertEquals("10s", fromAgent.serverStabilizationTime());
        ServerState server = states.get(0);
        assertEquals(fromAgent, Autopilot.config(server.store().snapshot(), fromAgent));
        server.apply(1, 1_000, CommandCodec.encode(new Command.AutopilotConfigUpdate(AutopilotConfig.DEFAULT, false,
                0)));
        assertTrue(Autopilot.config(server.store().snapshot(), fromAgent).cleanupDeadServers());
        assertEquals(AutopilotConfig.DEFAULT, Autopilot.fromAgent(Map.of()));
    }
}
