package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;

import io.caravan.api.json.NomadJson;
import io.caravan.consensus.internal.TestRaftGroup;
import io.caravan.server.internal.Keyring.RootKey;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three servers over real Raft, each with its own keystore: the first leader's key reaches every server sealed to
 * it, a JWT signed before the leader goes verifies on the new leader, which rotates and signs with a key every server
 * can open. Every server writes through the current leader's log (in a real cluster, RPC forwards to it).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class KeyringFailoverClusterTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private final List<ServerState> states = List.of(new ServerState(), new ServerState(), new ServerState());
    private final List<RaftWrites> writes = List.of(new RaftWrites(), new RaftWrites(), new RaftWrites());
    private final EvalBrokerTest.MutableClock clock = new EvalBrokerTest.MutableClock();
    private List<KeyringService> keyrings;

    @AfterEach
    void stop() {
        writes.forEach(RaftWrites::deactivate);
        states.forEach(ServerState::deactivate);
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting until " + what);
            Thread.sleep(50);
        }
    }

    private static int leader(TestRaftGroup group, int excluded) {
        return IntStream.range(0, 3).filter(i -> i != excluded && group.server(i).isLeader()).findFirst().orElse(-1);
    }

    private void writeThrough(TestRaftGroup group, int leader, int except) {
        for (int i = 0; i < 3; i++) {
            if (i != except) {
                writes.get(i).bindReplicator(group.server(leader));
            }
        }
    }

    /** Every live server ticks until each holds every key sealed to it. */
    private void replicate(int except) throws InterruptedException {
        await("every server holds every key", () -> {
            boolean done = true;
            for (int i = 0; i < 3; i++) {
                if (i == except) {
                    continue;
                }
                keyrings.get(i).tick();
                List<RootKey> keys = states.get(i).store().snapshot().all(Keyring.ROOT_KEYS).toList();
                int server = i;
                done &= !keys.isEmpty() && keys.stream().allMatch(k -> keyrings.get(server).open(k).isPresent());
            }
            return done;
        });
    }

    @Test
    void aJwtSignedBeforeALeaderChangeVerifiesAfterItAndRotationReachesEveryServer() throws Exception {
        try (TestRaftGroup group = TestRaftGroup.start(dir, states)) {
            assertTrue(group.awaitReady(WAIT), "a leader within " + WAIT);
            int first = leader(group, -1);
            writeThrough(group, first, -1);
            keyrings = IntStream.range(0, 3).mapToObj(i -> new KeyringService(states.get(i).store(), writes.get(i),
                    KeyringService.loadKeystore(dir.resolve("s" + i).toString()), clock, false)).toList();
            keyrings.forEach(KeyringService::tick); // publish the three keystores
            await("three keystores on the leader", () ->
                    states.get(first).store().snapshot().all(Keyring.KEYSTORES).count() == 3);

            KeyringDuties duties = new KeyringDuties(states.get(first).store()::snapshot, keyrings.get(first),
                    writes.get(first), KeyringTest.config("720h", "1h"));
            RootKey key = duties.ensureActive().orElseThrow().toCompletableFuture().get(30, TimeUnit.SECONDS);
            replicate(-1);
            String jwt = keyrings.get(first).sign(Map.of("sub", "before", "exp", clock.millis() / 1000 + 3600));
            for (int i = 0; i < 3; i++) {
                assertEquals("before", keyrings.get(i).verify(jwt).orElseThrow().get("sub"), "server " + i);
            }

            group.stop(first);
            await("another server leads", () -> leader(group, first) >= 0);
            int second = leader(group, first);
            writeThrough(group, second, first);
            assertEquals("before", keyrings.get(second).verify(jwt).orElseThrow().get("sub"),
                    "signed by the old leader, verified by the new one");

            KeyringDuties next = new KeyringDuties(states.get(second).store()::snapshot, keyrings.get(second),
                    writes.get(second), KeyringTest.config("720h", "1h"));
            assertTrue(next.ensureActive().isEmpty(), "the new leader keeps the active key");
            RootKey rotated = next.rotate("test").toCompletableFuture().get(30, TimeUnit.SECONDS);
            assertNotEquals(key.keyId(), rotated.keyId());
            replicate(first);
            int other = 3 - first - second;
            String after = keyrings.get(other).sign(Map.of("sub", "after"));
            assertEquals("after", keyrings.get(second).verify(after).orElseThrow().get("sub"));
            assertEquals("before", keyrings.get(other).verify(jwt).orElseThrow().get("sub"));
        }
    }

    private Variable row(int server, String path) {
        return states.get(server).store().snapshot().get(NomadTables.VARIABLES, NomadTables.key("default", path))
                .map(Variable.Entry::variable).orElse(null);
    }

    @Test
    void aVariableWrittenBeforeALeaderChangeReadsAfterItAndAFullRotationReKeysEveryVariable() throws Exception {
        try (TestRaftGroup group = TestRaftGroup.start(dir, states)) {
            assertTrue(group.awaitReady(WAIT), "a leader within " + WAIT);
            int first = leader(group, -1);
            writeThrough(group, first, -1);
            keyrings = IntStream.range(0, 3).mapToObj(i -> new KeyringService(states.get(i).store(), writes.get(i),
                    KeyringService.loadKeystore(dir.resolve("s" + i).toString()), clock, false)).toList();
            List<Variables> variables = IntStream.range(0, 3)
                    .mapToObj(i -> new Variables(states.get(i).store(), keyrings.get(i), clock)).toList();
            keyrings.forEach(KeyringService::tick);
            await("three keystores on the leader", () ->
                    states.get(first).store().snapshot().all(Keyring.KEYSTORES).count() == 3);
            RootKey key = new KeyringDuties(states.get(first).store()::snapshot, keyrings.get(first),
                    variables.get(first), writes.get(first), KeyringTest.config("720h", "1h")).ensureActive()
                    .orElseThrow().toCompletableFuture().get(30, TimeUnit.SECONDS);
            replicate(-1);

            int count = 70;   // more than one re-encryption batch
            for (int i = 0; i < count; i++) {
                Variable sealed = variables.get(first).seal(new Variable("default", "app/" + i,
                        Map.of("password", "s3cret-" + i), null, 0, 0, 0, 0));
                writes.get(first).submit(new Command.VariableSet(sealed, false, 0, null, 1))
                        .toCompletableFuture().get(30, TimeUnit.SECONDS);
            }
            await("every server applied the writes", () -> IntStream.range(0, 3)
                    .allMatch(i -> row(i, "app/" + (count - 1)) != null));
            for (int i = 0; i < 3; i++) {
                Variable raw = row(i, "app/0");
                assertTrue(raw.items().isEmpty(), "no items in clear on server " + i);
                assertEquals(key.keyId(), raw.data().keyId());
                assertFalse(NomadJson.mapper().writeValueAsString(raw).contains("s3cret"), "server " + i);
            }

            group.stop(first);
            await("another server leads", () -> leader(group, first) >= 0);
            int second = leader(group, first);
            writeThrough(group, second, first);
            int other = 3 - first - second;
            assertEquals("s3cret-0", variables.get(second).read("default", "app/0").orElseThrow().items()
                    .get("password"), "written under the old leader, read on the new one");
            assertEquals("s3cret-1", variables.get(other).read("default", "app/1").orElseThrow().items()
                    .get("password"), "and on the follower");

            RootKey next = Keyring.row(Keyring.generate(), clock.millis() * 1_000_000L,
                    states.get(second).store().snapshot().all(Keyring.KEYSTORES).toList());
            writes.get(second).submit(new Command.RootKeyUpsert(next, true)).toCompletableFuture()
                    .get(30, TimeUnit.SECONDS);
            KeyringDuties duties = new KeyringDuties(states.get(second).store()::snapshot, keyrings.get(second),
                    variables.get(second), writes.get(second), KeyringTest.config("720h", "1h"));
            int batches = 0;
            while (duties.rekey() > 0) {
                batches++;
            }
            assertEquals(2, batches);
            await("the old key is inactive on every live server", () -> IntStream.of(second, other).allMatch(i ->
                    states.get(i).store().snapshot().get(Keyring.ROOT_KEYS, key.keyId()).orElseThrow().state()
                            .equals(Keyring.INACTIVE)));
            for (int i = 0; i < count; i++) {
                assertEquals(next.keyId(), row(other, "app/" + i).data().keyId());
                assertEquals("s3cret-" + i, variables.get(other).read("default", "app/" + i).orElseThrow().items()
                        .get("password"));
            }
        }
    }
}
