package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;

import io.caravan.api.model.Job;
import io.caravan.consensus.internal.TestRaftGroup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three servers over real Raft: the leader's periodic dispatcher launches a child, the leader goes away while three
 * launches fall due, and the new leader, rebuilt from its replicated state, launches only the latest of them — and a
 * second rebuild launches nothing more.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class PeriodicFailoverClusterTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private final List<ServerState> states = List.of(new ServerState(), new ServerState(), new ServerState());
    private final List<RaftWrites> writes = List.of(new RaftWrites(), new RaftWrites(), new RaftWrites());
    private final EvalBrokerTest.MutableClock clock = new EvalBrokerTest.MutableClock(); // 2026-01-01T00:00:00Z
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stop() {
        timers.shutdownNow();
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

    private List<String> children(int server) {
        return PeriodicJobs.children(states.get(server).store().snapshot(), "default", "report").map(Job::id)
                .sorted().toList();
    }

    private static String child(String at) {
        return "report/periodic-" + Instant.parse(at).getEpochSecond();
    }

    private int leader(TestRaftGroup group, int excluded) {
        return IntStream.range(0, states.size()).filter(i -> i != excluded && group.server(i).isLeader()).findFirst()
                .orElse(-1);
    }

    @Test
    void aNewLeaderCatchesUpTheLatestMissedLaunchOnce() throws Exception {
        try (TestRaftGroup group = TestRaftGroup.start(dir, states)) {
            assertTrue(group.awaitReady(WAIT), "a leader within " + WAIT);
            for (int i = 0; i < writes.size(); i++) {
                writes.get(i).bindReplicator(group.server(i));
            }
            int first = leader(group, -1);
            Job parent = Jobs.canonical(JobLimitsTest.wrap(PeriodicDispatcherTest.periodicJob("report",
                    "{\"Spec\": \"*/5 * * * *\"}")), "global").withSubmitTime(clock.millis() * 1_000_000L);
            writes.get(first).submit(new Command.JobRegister(parent, null, false, 0)).toCompletableFuture()
                    .get(30, TimeUnit.SECONDS);

            PeriodicDispatcher leading = new PeriodicDispatcher(states.get(first).store(), writes.get(first), clock,
                    timers);
            leading.restore();
            clock.advance(Duration.ofMinutes(5));
            leading.tick();
            await("the first launch is applied on every server", () -> IntStream.range(0, 3)
                    .allMatch(i -> children(i).equals(List.of(child("2026-01-01T00:05:00Z")))));

            // The leader goes; launches at 00:10, 00:15 and 00:20 fall due before another server leads.
            leading.close();
            group.stop(first);
            clock.advance(Duration.ofMinutes(18));
            await("another server leads", () -> leader(group, first) >= 0);
            int second = leader(group, first);

            PeriodicDispatcher next = new PeriodicDispatcher(states.get(second).store(), writes.get(second), clock,
                    timers);
            next.restore();
            List<String> expected = List.of(child("2026-01-01T00:05:00Z"), child("2026-01-01T00:20:00Z"));
            await("the catch-up launch is applied", () -> children(second).equals(expected));
            assertEquals(Instant.parse("2026-01-01T00:25:00Z"), next.nextLaunch("default", "report"));
            next.close();

            // Leadership rebuilt again at the same moment: nothing is due, nothing is launched twice.
            PeriodicDispatcher again = new PeriodicDispatcher(states.get(second).store(), writes.get(second), clock,
                    timers);
            again.restore();
            Thread.sleep(500);
            assertEquals(expected, children(second));
            again.close();
        }
    }
}
