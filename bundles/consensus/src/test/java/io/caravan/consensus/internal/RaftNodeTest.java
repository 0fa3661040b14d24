package io.caravan.consensus.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.caravan.consensus.Applied;
import io.caravan.consensus.NotLeaderException;
import io.caravan.consensus.Replicator;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.protocol.GroupInfoReply;
import org.apache.ratis.protocol.RaftPeerId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A real one-server Raft group over gRPC (with mutual TLS unless a test says otherwise) on loopback, without OSGi. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RaftNodeTest extends OneServerGroup {
    private static final long SUBMIT_SECONDS = 10;


    private static Applied submit(Replicator replicator, long value) throws Exception {
        return replicator.submit(CountingHandler.command(value)).toCompletableFuture()
                .get(SUBMIT_SECONDS, TimeUnit.SECONDS);
    }

    @Test
    void oneServerGroupElectsItselfAndAppliesInOrder() throws Exception {
        CountingHandler handler = new CountingHandler(false);
        int port = TestNodes.freePort();
        started(TestNodes.single("n1", port, dir, 100), handler);

        assertTrue(node.isLeader());
        assertEquals(List.of("127.0.0.1:" + port), node.peers());
        assertEquals("127.0.0.1:" + port, node.leaderAddress().orElseThrow());
        long previous = node.lastAppliedIndex();
        for (int i = 1; i <= 1000; i++) {
            Applied applied = submit(node, i);
            assertEquals(i, CountingHandler.decode(applied.result()), "results come back in order");
            assertTrue(applied.index() > previous, "indexes increase");
            previous = applied.index();
        }
        assertEquals(1000, handler.count);
        assertEquals(500_500, handler.sum);
        assertEquals(previous, node.lastAppliedIndex());
    }

    @Test
    void concurrentConsistentReadsAllCompleteAfterTheWritesBeforeThem() throws Exception {
        CountingHandler handler = new CountingHandler(false);
        started(TestNodes.single("n3", TestNodes.freePort(), dir, 100), handler);
        List<java.util.concurrent.CompletableFuture<Void>> reads = new java.util.ArrayList<>();
        for (int round = 1; round <= 20; round++) {
            Applied written = submit(node, round);
            for (int i = 0; i < 100; i++) {
                long seen = handler.count;
                reads.add(node.awaitConsistentRead().toCompletableFuture().thenRun(() ->
                        assertTrue(node.lastAppliedIndex() >= written.index() && handler.count >= seen,
                                "a read completes only once what was acknowledged before it is applied")));
            }
        }
        java.util.concurrent.CompletableFuture.allOf(reads.toArray(new java.util.concurrent.CompletableFuture[0]))
                .get(SUBMIT_SECONDS, TimeUnit.SECONDS);
        assertEquals(2000, reads.stream().filter(f -> f.isDone() && !f.isCompletedExceptionally()).count());
    }

    @Test
    void withoutASecretTheRaftPortIsPlaintextAndOpenToAnyRatisClient() throws Exception {
        Peer self = new Peer("p1", "127.0.0.1:" + TestNodes.freePort());
        started(new RaftSettings(self, List.of(), dir, 100, RaftSettings.DEFAULT_TRAILING_LOGS, Duration.ofSeconds(5),
                null), new CountingHandler(false));
        try (RaftClient client = TestNodes.client(List.of(self), new Parameters())) {
            GroupInfoReply info = client.getGroupManagementApi(RaftPeerId.valueOf("p1")).info(RaftNode.GROUP_ID);
            assertTrue(info.isSuccess());
            assertEquals(1, info.getGroup().getPeers().size());
        }
    }

    @Test
    void restartRestoresFromSnapshotAndReplaysTheRestWithTheSameTimestamps() throws Exception {
        int port = TestNodes.freePort();
        RaftSettings settings = TestNodes.single("n2", port, dir, 100);
        CountingHandler first = new CountingHandler(false);
        started(settings, first);
        int submitted = 0;
        while (submitted < 1000 || node.lastAppliedIndex() - node.latestSnapshotIndex() < 20) {
            submit(node, ++submitted);   // at least 1000, and leave some entries after the last snapshot to replay
        }
        assertTrue(node.latestSnapshotIndex() > 0, "a snapshot was taken");
        long lastIndex = node.lastAppliedIndex();
        node.close();
        assertTrue(snapshotFiles().anyMatch(f -> f.endsWith(".md5")), "snapshots with MD5 are written");

        CountingHandler second = new CountingHandler(false);
        started(settings, second);

        assertTrue(second.restoredFrom > 0, "restored from a snapshot");
        assertTrue(second.applyCalls > 0, "replayed the log after the snapshot");
        assertEquals(first.count, second.count);
        assertEquals(first.sum, second.sum);
        assertEquals(first.checksum, second.checksum, "same entries, same indexes, same timestamps");
        for (Map.Entry<Long, Long> replayed : second.timestamps.entrySet()) {
            assertEquals(first.timestamps.get(replayed.getKey()), replayed.getValue(),
                    "timestamp of replayed index " + replayed.getKey());
        }
        assertTrue(node.lastAppliedIndex() >= lastIndex);
        Applied next = submit(node, 7);
        assertEquals(submitted + 1, CountingHandler.decode(next.result()));
        assertTrue(next.index() > lastIndex);
    }

    @Test
    void entriesKeepApplyingWhileASnapshotIsWrittenAndItIsRecordedOnceComplete() throws Exception {
        CountingHandler counter = new CountingHandler(false);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicInteger writes = new java.util.concurrent.atomic.AtomicInteger();
        io.caravan.consensus.CommandHandler slowToWrite = new io.caravan.consensus.CommandHandler() {
            @Override
            public byte[] apply(long index, long timestampMillis, byte[] command) {
                return counter.apply(index, timestampMillis, command);
            }

            @Override
            public void snapshot(java.io.OutputStream out) throws IOException {
                counter.snapshot(out);
            }

            @Override
            public CapturedState captureState() throws IOException {
                java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
                counter.snapshot(captured);
                return out -> {
                    writes.incrementAndGet();
                    try {
                        release.await(SUBMIT_SECONDS * 3, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    out.write(captured.toByteArray());
                };
            }

            @Override
            public void restore(long index, java.io.InputStream in) throws IOException {
                counter.restore(index, in);
            }
        };
        started(TestNodes.single("n5", TestNodes.freePort(), dir, 100), slowToWrite);
        for (int i = 1; i <= 400; i++) {
            submit(node, i); // past the threshold: a snapshot is being written, and entries go on applying
        }
        assertEquals(400, counter.count);
        assertEquals(1, writes.get(), "one snapshot at a time");
        assertTrue(node.latestSnapshotIndex() <= 0, "nothing recorded before the file is complete");

        release.countDown();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SUBMIT_SECONDS);
        int more = 400;
        while (node.latestSnapshotIndex() <= 0 && System.nanoTime() < deadline) {
            submit(node, ++more);
        }
        long snapshot = node.latestSnapshotIndex();
        assertTrue(snapshot >= 50 && snapshot < 400, "the snapshot taken at the threshold: " + snapshot);
        // Ratis hears of it at its next call, and with 300 more entries applied since, the next one is captured.
        while (node.latestSnapshotIndex() < 400 && System.nanoTime() < deadline) {
            submit(node, ++more);
        }
        assertTrue(node.latestSnapshotIndex() >= 400, "a later snapshot: " + node.latestSnapshotIndex());
        assertTrue(writes.get() >= 2 && writes.get() <= 3, "one at a time, each once: " + writes.get());
    }

    @Test
    void noSnapshotIsTakenWithinTheSnapshotInterval() throws Exception {
        RaftSettings base = TestNodes.single("n6", TestNodes.freePort(), dir, 100);
        started(new RaftSettings(base.self(), base.peers(), base.dir(), 100, base.trailingLogs(), base.leaderWait(),
                base.secret(), null, Duration.ofHours(1)), new CountingHandler(false));
        for (int i = 1; i <= 400; i++) {
            submit(node, i);
        }
        assertTrue(node.latestSnapshotIndex() <= 0, "past the threshold four times, but within raft_snapshot_interval");
    }

    @Test
    void restartWithoutSnapshotReplaysTheWholeLog() throws Exception {
        int port = TestNodes.freePort();
        RaftSettings settings = TestNodes.single("n3", port, dir, 100_000);
        CountingHandler first = new CountingHandler(false);
        started(settings, first);
        for (int i = 1; i <= 50; i++) {
            submit(node, i);
        }
        node.close();

        CountingHandler second = new CountingHandler(false);
        second.count = 999;   // a handler that outlived an earlier server: restore(0, empty) resets it
        started(settings, second);
        assertEquals(0, second.restoredFrom);
        assertEquals(50, second.applyCalls);
        assertEquals(first.checksum, second.checksum);
        assertEquals(first.timestamps, second.timestamps);
    }

    @Test
    void anExceptionInApplyHaltsTheServerInsteadOfSkippingTheEntry() throws Exception {
        int port = TestNodes.freePort();
        RaftSettings settings = TestNodes.single("n4", port, dir, 100);
        CountingHandler failing = new CountingHandler(true);
        started(settings, failing);
        for (int i = 1; i <= 10; i++) {
            submit(node, i);
        }

        ExecutionException poisoned =
                assertThrows(ExecutionException.class, () -> submit(node, CountingHandler.POISON));
        assertInstanceOf(IllegalStateException.class, poisoned.getCause());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (node.isRunning() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertFalse(node.isRunning(), "server stopped");
        assertFalse(node.isLeader());
        ExecutionException after = assertThrows(ExecutionException.class, () -> submit(node, 11));
        assertInstanceOf(IllegalStateException.class, after.getCause());
        assertEquals(10, failing.count, "nothing applied after the failed entry");
        node.close();

        // The entry was kept: a fixed handler applies it on the next start.
        CountingHandler fixed = new CountingHandler(false);
        started(settings, fixed);
        assertEquals(11, fixed.count);
        assertEquals(10 * 11 / 2 + CountingHandler.POISON, fixed.sum);
    }

    @Test
    void submitWithoutALeaderFailsWithNoClusterLeaderAfterABoundedWait() throws Exception {
        // Two voters, one of which never answers: no majority, so no leader, ever.
        RaftSettings settings = TestNodes.withGhostPeer("n5", TestNodes.freePort(), TestNodes.freePort(), dir,
                Duration.ofMillis(800));
        node = new RaftNode(settings, new CountingHandler(false), System::currentTimeMillis);

        assertNoLeader(node);          // before the server even started
        node.start();
        assertFalse(node.awaitReady(Duration.ofMillis(500)));
        assertNoLeader(node);          // started, but no election can succeed
        assertFalse(node.isLeader());
        assertTrue(node.leaderAddress().isEmpty());
        assertEquals(2, node.peers().size());
    }

    private static void assertNoLeader(RaftNode node) throws Exception {
        long start = System.nanoTime();
        try {
            node.submit(CountingHandler.command(1)).toCompletableFuture().get(SUBMIT_SECONDS, TimeUnit.SECONDS);
            fail("submitted without a leader");
        } catch (ExecutionException e) {
            NotLeaderException notLeader = assertInstanceOf(NotLeaderException.class, e.getCause());
            assertEquals("No cluster leader", notLeader.getMessage());
            assertTrue(notLeader.leaderAddress().isEmpty());
        }
        long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(waitedMs >= 700 && waitedMs < 5000, "waited " + waitedMs + " ms");
    }

    private Stream<String> snapshotFiles() throws IOException {
        Map<String, Path> found = new HashMap<>();
        try (Stream<Path> files = Files.walk(dir)) {
            files.filter(Files::isRegularFile).filter(p -> p.getFileName().toString().startsWith("snapshot."))
                    .forEach(p -> found.put(p.getFileName().toString(), p));
        }
        return found.keySet().stream();
    }
}
