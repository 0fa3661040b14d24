package io.caravan.consensus.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.caravan.consensus.Applied;
import io.caravan.consensus.CommandHandler;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Batched submits through a real one-server group: order, per-command results and failures, replay. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SubmitBatchingTest extends OneServerGroup {
    private static final int BURST = 400;

    private void start(RaftSettings settings, CountingHandler handler) throws Exception {
        started(settings, handler);
    }

    /** Submits without waiting, so that all but the first few queue behind the writes in flight and are batched. */
    private List<CompletableFuture<Applied>> burst(long firstValue, int n) {
        List<CompletableFuture<Applied>> results = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            results.add(node.submit(CountingHandler.command(firstValue + i)).toCompletableFuture());
        }
        return results;
    }

    private static List<Applied> all(List<CompletableFuture<Applied>> results) throws Exception {
        List<Applied> applied = new ArrayList<>();
        for (CompletableFuture<Applied> r : results) {
            applied.add(r.get(30, TimeUnit.SECONDS));
        }
        return applied;
    }

    @Test
    void aBurstIsBatchedAppliedInSubmissionOrderAndEachCallerGetsItsOwnResult() throws Exception {
        CountingHandler handler = new CountingHandler(false);
        start(TestNodes.single("b1", TestNodes.freePort(), dir, 100_000), handler);

        List<Applied> applied = all(burst(1, BURST));

        Set<Long> indexes = new HashSet<>();
        long previousIndex = 0;
        for (int i = 0; i < BURST; i++) {
            // CountingHandler answers the count after applying: i+1 only if applied i-th, in submission order.
            assertEquals(i + 1, CountingHandler.decode(applied.get(i).result()), "result of command " + i);
            assertTrue(applied.get(i).index() >= previousIndex, "indexes never go back");
            previousIndex = applied.get(i).index();
            indexes.add(previousIndex);
        }
        assertTrue(indexes.size() < BURST / 4, BURST + " commands in " + indexes.size() + " entries: batched");
        assertEquals(BURST, handler.count);
        assertEquals((long) BURST * (BURST + 1) / 2, handler.sum);
        assertEquals(previousIndex, node.lastAppliedIndex());
    }

    @Test
    void batchEntriesReplayIdenticallyFromTheLogAndAfterASnapshot() throws Exception {
        RaftSettings settings = TestNodes.single("b2", TestNodes.freePort(), dir, 10);
        CountingHandler first = new CountingHandler(false);
        start(settings, first);
        int submitted = 0;
        for (int round = 0; round < 20; round++) {
            all(burst(submitted + 1, 50));
            submitted += 50;
            all(List.of(node.submit(CountingHandler.command(++submitted)).toCompletableFuture()));   // single entries too
        }
        assertTrue(node.latestSnapshotIndex() > 0, "a snapshot was taken");
        // Snapshots are taken in the background: write single entries until a few stand after the latest one and no
        // snapshot is pending, so that the restart has entries to replay.
        for (int i = 0; i < 40 && !(node.lastAppliedIndex() - node.latestSnapshotIndex() >= 1
                && node.lastAppliedIndex() - node.latestSnapshotIndex() <= 5); i++) {
            all(List.of(node.submit(CountingHandler.command(++submitted)).toCompletableFuture()));
            Thread.sleep(50);
        }
        assertTrue(node.lastAppliedIndex() > node.latestSnapshotIndex(), "entries after the snapshot to replay");
        assertTrue(first.timestamps.size() < submitted / 4, "batched: " + first.timestamps.size() + " entries");
        node.close();

        CountingHandler fromSnapshot = new CountingHandler(false);
        start(settings, fromSnapshot);
        assertTrue(fromSnapshot.restoredFrom > 0, "restored from a snapshot");
        assertTrue(fromSnapshot.applyCalls > 0, "replayed batch entries after it");
        assertEquals(first.count, fromSnapshot.count);
        assertEquals(first.sum, fromSnapshot.sum);
        assertEquals(first.checksum, fromSnapshot.checksum, "same commands, same indexes and stamps, same order");
        for (var replayed : fromSnapshot.timestamps.entrySet()) {
            assertEquals(first.timestamps.get(replayed.getKey()), replayed.getValue(), "stamp of " + replayed);
        }
        List<Applied> more = all(burst(1000, 20));
        assertEquals(first.count + 20, CountingHandler.decode(more.get(19).result()));
    }

    @Test
    void wholeLogReplayOfBatchEntriesWithoutASnapshot() throws Exception {
        RaftSettings settings = TestNodes.single("b3", TestNodes.freePort(), dir, 100_000);
        CountingHandler first = new CountingHandler(false);
        start(settings, first);
        all(burst(1, 300));
        node.close();

        CountingHandler second = new CountingHandler(false);
        start(settings, second);
        assertEquals(0, second.restoredFrom);
        assertEquals(300, second.applyCalls);
        assertEquals(first.checksum, second.checksum);
        assertEquals(first.timestamps, second.timestamps);
    }

    @Test
    void aCommandWhoseHandlerThrowsFailsItselfWhileTheCommandsBeforeItSucceed() throws Exception {
        RaftSettings settings = TestNodes.single("b4", TestNodes.freePort(), dir, 100_000);
        CountingHandler failing = new CountingHandler(true);
        start(settings, failing);
        int poisonAt = BURST / 2;
        List<CompletableFuture<Applied>> results = new ArrayList<>();
        for (int i = 0; i < BURST; i++) {
            long value = i == poisonAt ? CountingHandler.POISON : i + 1;
            results.add(node.submit(CountingHandler.command(value)).toCompletableFuture());
        }

        int answered = 0;
        for (int i = 0; i < poisonAt; i++) {
            // Applied, all of them (asserted below); an answer may still be lost when the server stops before Ratis
            // replied for an entry it had applied, as between single-command entries.
            try {
                assertEquals(i + 1, CountingHandler.decode(results.get(i).get(30, TimeUnit.SECONDS).result()),
                        "command " + i + ", before the failing one, committed with its own result");
                answered++;
            } catch (ExecutionException stopped) {
                assertInstanceOf(IllegalStateException.class, stopped.getCause());
            }
        }
        assertTrue(answered > 0, "commands before the failing one got their results");
        ExecutionException poisoned = assertThrows(ExecutionException.class,
                () -> results.get(poisonAt).get(30, TimeUnit.SECONDS));
        assertInstanceOf(IllegalStateException.class, poisoned.getCause());
        String why = String.valueOf(poisoned.getCause());
        assertTrue(why.contains("poison at") || why.contains("stopped after a command failed"), why);
        for (int i = poisonAt + 1; i < BURST; i++) {
            // never applied: the server stops at the failed command, as it would between single-command entries
            ExecutionException stopped = assertThrows(ExecutionException.class,
                    results.get(i)::get, "command " + i);
            assertInstanceOf(IllegalStateException.class, stopped.getCause());
        }
        assertEquals(poisonAt, failing.count, "nothing applied after the failing command");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (node.isRunning() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertFalse(node.isRunning(), "server stopped");
        node.close();

        // The batch entry was kept whole: a fixed handler applies all of it, and the rest, on the next start.
        CountingHandler fixed = new CountingHandler(false);
        start(settings, fixed);
        assertTrue(fixed.count >= poisonAt + 1, "replayed through the failed command: " + fixed.count);
    }

    @Test
    void aHandlerThatIsNotABatchingOneGetsEachCommandAtAnIndexOfItsOwn() throws Exception {
        CountingHandler counting = new CountingHandler(false);
        List<Long> indexes = new java.util.concurrent.CopyOnWriteArrayList<>();
        CommandHandler plain = new CommandHandler() {
            @Override
            public byte[] apply(long index, long timestampMillis, byte[] command) {
                indexes.add(index);
                return counting.apply(index, timestampMillis, command);
            }

            @Override
            public void snapshot(OutputStream out) throws IOException {
                counting.snapshot(out);
            }

            @Override
            public void restore(long index, InputStream in) throws IOException {
                counting.restore(index, in);
            }
        };
        node = new RaftNode(TestNodes.single("b5", TestNodes.freePort(), dir, 100_000), plain,
                System::currentTimeMillis);
        node.start();
        assertTrue(node.awaitReady(READY), "no leader within " + READY);

        List<Applied> applied = all(burst(1, 100));
        assertEquals(100, new HashSet<>(indexes).size(), "100 commands in 100 entries: " + indexes);
        for (int i = 0; i < 100; i++) {
            assertEquals(i + 1, CountingHandler.decode(applied.get(i).result()));
        }
    }
}
