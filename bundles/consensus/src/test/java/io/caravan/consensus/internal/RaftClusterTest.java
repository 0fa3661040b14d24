package io.caravan.consensus.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.stream.Stream;

import io.caravan.consensus.Applied;
import io.caravan.consensus.CommandHandler;
import io.caravan.consensus.NotLeaderException;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.util.SizeInBytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three {@link RaftNode}s in one JVM, a real Raft group over gRPC with mutual TLS on loopback, each with its own
 * directory. One cluster for the class: every test leaves all three running and members, and the next one starts from
 * there.
 * Closing a node stands in for killing its agent: Ratis' close hands nothing over (no leadership transfer), it just
 * stops answering, though unlike kill -9 it never stops mid-write. Log segments are tiny (a few entries), so that the
 * leader purges its log behind snapshots within a test and a lagging follower must be sent the snapshot.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RaftClusterTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final long SUBMIT_SECONDS = 10;
    private static final long SNAPSHOT_THRESHOLD = 40;
    /**
     * Entries kept behind a snapshot. More than a follower misses in {@link #aRestartedNodeRestoresItsSnapshotAndReplaysTheRest}
     * (it replays from the leader's log), fewer than it misses in
     * {@link #aFollowerBehindThePurgedLogGetsTheLeadersSnapshot} (the leader must send its snapshot).
     */
    private static final long TRAILING_LOGS = 3 * SNAPSHOT_THRESHOLD;

    @TempDir
    static Path root;

    private final AtomicLong values = new AtomicLong();
    private final List<Member> members = new ArrayList<>();

    @BeforeAll
    void startCluster() throws Exception {
        List<Peer> peers = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            peers.add(new Peer("c" + i, "127.0.0.1:" + TestNodes.freePort()));
        }
        for (Peer self : peers) {
            RaftSettings settings = new RaftSettings(self, peers, root.resolve(self.id()), SNAPSHOT_THRESHOLD,
                    TRAILING_LOGS, Duration.ofSeconds(5), TestNodes.SECRET);
            members.add(new Member(settings));
        }
        for (Member m : members) {
            m.start();
        }
    }

    @AfterAll
    void stopCluster() {
        members.forEach(Member::close);
    }

    @BeforeEach
    void allReady() throws Exception {
        for (Member m : members) {
            assertTrue(m.node.awaitReady(WAIT), m.id() + " not ready within " + WAIT);
        }
    }

    @Test
    @Order(1)
    void electsExactlyOneLeaderAndAppliesEveryCommandEverywhereInTheSameOrder() throws Exception {
        Member leader = awaitOneLeader(members);
        for (Member m : members) {
            TestNodes.await(WAIT, () -> m.node.leaderAddress().equals(Optional.of(leader.address())),
                    m.id() + " knows the leader");
            assertEquals(3, m.node.peers().size());
        }

        Member follower = members.stream().filter(m -> m != leader).findFirst().orElseThrow();
        ExecutionException redirected = assertThrows(ExecutionException.class,
                () -> follower.node.submit(command(values.incrementAndGet())).toCompletableFuture()
                        .get(SUBMIT_SECONDS, TimeUnit.SECONDS));
        NotLeaderException notLeader = assertInstanceOf(NotLeaderException.class, redirected.getCause());
        assertEquals(Optional.of(leader.address()), notLeader.leaderAddress(), "a follower names the leader");

        List<Long> submitted = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            long value = values.incrementAndGet();
            submitForwarding(members, i % 3, value);   // through each node in turn
            submitted.add(value);
        }
        awaitConverged(members);
        List<Long> applied = leader.handler.values();
        assertEquals(submitted, applied.subList(applied.size() - submitted.size(), applied.size()),
                "applied in submission order");
        assertFalse(applied.contains(values.get() - submitted.size()), "the command a follower refused was dropped");
    }

    @Test
    @Order(2)
    void leaderLossElectsANewLeaderAndARestartedNodeCatchesUp() throws Exception {
        Member old = awaitOneLeader(members);
        List<Member> survivors = members.stream().filter(m -> m != old).toList();
        submitForwarding(members, 0, values.incrementAndGet());

        long killed = System.nanoTime();
        CompletableFuture<Void> closing = CompletableFuture.runAsync(old::close);
        submitForwarding(survivors, 0, values.incrementAndGet());
        long failoverMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
        closing.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        long closeMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
        System.out.printf("RaftClusterTest: failover (leader %s closed -> next write committed) took %d ms; "
                + "the close itself returned after %d ms%n", old.id(), failoverMs, closeMs);

        Member next = awaitOneLeader(survivors);
        assertNotEquals(old, next);
        assertTrue(failoverMs < WAIT.toMillis(), "failover took " + failoverMs + " ms");
        List<Long> missed = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            long value = values.incrementAndGet();
            submitForwarding(survivors, i % 2, value);
            missed.add(value);
        }
        awaitConverged(survivors);
        assertFalse(old.handler.values().contains(missed.get(0)));

        old.restart();   // same id, address and directory; a fresh handler, as a new process would have
        assertTrue(old.node.awaitReady(WAIT));
        awaitConverged(members);
        assertTrue(old.handler.values().containsAll(missed), "the restarted node applied what it missed");
        submitForwarding(members, 0, values.incrementAndGet());
        awaitConverged(members);
    }

    @Test
    @Order(3)
    void aRestartedNodeRestoresItsSnapshotAndReplaysTheRest() throws Exception {
        Member leader = awaitOneLeader(members);
        Member follower = members.stream().filter(m -> m != leader).findFirst().orElseThrow();
        // Each server snapshots on its own every SNAPSHOT_THRESHOLD applied entries.
        for (int i = 0; follower.node.latestSnapshotIndex() <= 0 || i < 5; i++) {
            submitForwarding(members, 0, values.incrementAndGet());
            assertTrue(i < 10 * SNAPSHOT_THRESHOLD, "no snapshot after " + i + " writes");
        }
        awaitConverged(members);
        follower.close();
        long snapshotIndex = follower.node.latestSnapshotIndex();
        assertTrue(snapshotIndex > 0);
        assertTrue(snapshotFiles(follower).anyMatch(f -> f.endsWith(".md5")), "snapshot files on disk");

        List<Member> others = members.stream().filter(m -> m != follower).toList();
        for (int i = 0; i < 2 * SNAPSHOT_THRESHOLD; i++) {
            submitForwarding(others, i % 2, values.incrementAndGet());
        }
        awaitConverged(others);

        follower.restart();
        assertTrue(follower.node.awaitReady(WAIT));
        awaitConverged(members);
        ListHandler restarted = follower.handler;
        assertEquals(snapshotIndex, restarted.restores.get(0), "restore is called with the snapshot's index");
        assertTrue(restarted.applyCalls.get() > 2 * SNAPSHOT_THRESHOLD, "replayed and caught up after the snapshot");
        assertTrue(restarted.firstAppliedIndex > snapshotIndex, "nothing at or before the snapshot is applied again");
        assertEquals(leader.handler.entries(), restarted.entries(), "same entries, indexes and timestamps");
    }

    @Test
    @Order(4)
    void aFollowerBehindThePurgedLogGetsTheLeadersSnapshot() throws Exception {
        Member leader = awaitOneLeader(members);
        Member follower = members.stream().filter(m -> m != leader).findFirst().orElseThrow();
        follower.close();
        long behind = follower.node.lastAppliedIndex();

        List<Member> others = members.stream().filter(m -> m != follower).toList();
        for (int i = 0; leader.node.firstLogIndex() <= behind + 1; i++) {
            submitForwarding(others, i % 2, values.incrementAndGet());
            assertTrue(i < 50 * SNAPSHOT_THRESHOLD, "the leader's log was not purged after " + i + " writes");
        }
        awaitConverged(others);

        follower.restart();
        assertTrue(follower.node.awaitReady(WAIT));
        awaitConverged(members);
        List<Long> restores = follower.handler.restores;
        assertTrue(restores.size() >= 2 && restores.get(restores.size() - 1) > behind,
                "the leader's snapshot replaced the state: restores at " + restores);
        assertEquals(leader.handler.entries(), follower.handler.entries());
        submitForwarding(members, 0, values.incrementAndGet());   // and it keeps applying after the install
        awaitConverged(members);
    }

    @Test
    @Order(5)
    void aRemovedPeerLeavesATwoServerGroupThatStillCommitsAndCanBeAddedBack() throws Exception {
        Member leader = awaitOneLeader(members);
        Member removed = members.stream().filter(m -> m != leader).findFirst().orElseThrow();
        List<Member> remaining = members.stream().filter(m -> m != removed).toList();
        List<Peer> twoPeers = remaining.stream().map(m -> m.settings.self()).toList();
        Member other = remaining.stream().filter(m -> m != leader).findFirst().orElseThrow();

        ExecutionException onFollower = assertThrows(ExecutionException.class,
                () -> other.node.setPeers(twoPeers).toCompletableFuture().get(SUBMIT_SECONDS, TimeUnit.SECONDS));
        assertInstanceOf(NotLeaderException.class, onFollower.getCause(), "only the leader changes membership");

        leader.node.setPeers(twoPeers).toCompletableFuture().get(SUBMIT_SECONDS, TimeUnit.SECONDS);
        List<String> twoAddresses = remaining.stream().map(Member::address).toList();
        for (Member m : remaining) {
            TestNodes.await(WAIT, () -> m.node.peers().size() == 2 && m.node.peers().containsAll(twoAddresses),
                    m.id() + " sees the two-server configuration");
        }
        removed.close();   // as after Nomad's remove-peer: the removed server is shut down

        List<Long> written = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            long value = values.incrementAndGet();
            submitForwarding(remaining, i % 2, value);
            written.add(value);
        }
        awaitConverged(remaining);
        assertTrue(other.handler.values().containsAll(written));

        // Back in: the server restarts on its directory (its log says it is no member) and the leader adds it.
        removed.restart();
        Member current = awaitOneLeader(remaining);
        List<Peer> all = members.stream().map(m -> m.settings.self()).toList();
        current.node.setPeers(all).toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        for (Member m : members) {
            TestNodes.await(WAIT, () -> m.node.peers().size() == 3, m.id() + " sees the three-server configuration");
        }
        submitForwarding(members, 0, values.incrementAndGet());
        awaitConverged(members);
        assertTrue(removed.handler.values().containsAll(written), "the re-added server caught up");
    }

    @Test
    @Order(6)
    void aServerThatLeftRestartsOnItsLogWithoutLeadingAloneAndIsAddedBackBehindThePurgedLog() throws Exception {
        Member leader = awaitOneLeader(members);
        Member left = members.stream().filter(m -> m != leader).findFirst().orElseThrow();
        List<Member> remaining = members.stream().filter(m -> m != left).toList();
        leader.node.setPeers(remaining.stream().map(m -> m.settings.self()).toList()).toCompletableFuture()
                .get(SUBMIT_SECONDS, TimeUnit.SECONDS);
        TestNodes.await(WAIT, () -> left.node.configuration().stream().noneMatch(p -> p.id().equals(left.id())),
                "the leaving server's log records that it left");
        left.close();
        long behind = left.node.lastAppliedIndex();
        for (int i = 0; leader.node.firstLogIndex() <= behind + 1; i++) {
            submitForwarding(remaining, i % 2, values.incrementAndGet());
            assertTrue(i < 50 * SNAPSHOT_THRESHOLD, "the leader's log was not purged after " + i + " writes");
        }
        awaitConverged(remaining);

        // As the component restarts a server with state: configured with itself alone. Its log says it is no member,
        // so it must neither lead a group of one nor take writes; it waits for the leader.
        left.restart(left.settings.withPeers(List.of()));
        Thread.sleep(2000);   // several election timeouts
        assertFalse(left.node.isLeader(), "a server that left does not elect itself");
        assertTrue(left.node.configuration().stream().noneMatch(p -> p.id().equals(left.id())),
                left.node.configuration().toString());

        Member current = awaitOneLeader(remaining);
        current.node.setPeers(members.stream().map(m -> m.settings.self()).toList()).toCompletableFuture()
                .get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertTrue(left.node.awaitReady(WAIT));
        awaitConverged(members);
        assertEquals(current.handler.entries(), left.handler.entries(), "caught up through the leader's snapshot");
        submitForwarding(members, 0, values.incrementAndGet());
        awaitConverged(members);
    }

    @Test
    @Order(7)
    void anAddThatFailedWhileTheServerWasDownSucceedsOnceItRuns() throws Exception {
        Member leader = awaitOneLeader(members);
        Member left = members.stream().filter(m -> m != leader).findFirst().orElseThrow();
        List<Member> remaining = members.stream().filter(m -> m != left).toList();
        leader.node.setPeers(remaining.stream().map(m -> m.settings.self()).toList()).toCompletableFuture()
                .get(SUBMIT_SECONDS, TimeUnit.SECONDS);
        left.close();
        List<Peer> all = members.stream().map(m -> m.settings.self()).toList();
        long t0 = System.nanoTime();
        ExecutionException down = assertThrows(ExecutionException.class,
                () -> leader.node.setPeers(all).toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS));
        System.out.println("RaftClusterTest: adding a stopped server failed after "
                + (System.nanoTime() - t0) / 1_000_000 + " ms: " + down.getCause());

        left.restart(left.settings.withPeers(List.of()));
        Member current = awaitOneLeader(remaining);
        t0 = System.nanoTime();
        current.node.setPeers(all).toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        System.out.println("RaftClusterTest: added back after " + (System.nanoTime() - t0) / 1_000_000 + " ms");
        submitForwarding(members, 0, values.incrementAndGet());
        awaitConverged(members);
    }

    @Test
    @Order(8)
    void aNewServerWithAnEmptyDirectoryJoinsTheRunningGroup() throws Exception {
        // Configured as a join would configure it: the running members plus itself, so that it never elects itself
        // alone (a server that bootstraps a one-server group of its own has a log that cannot be merged).
        List<Peer> four = new ArrayList<>(members.stream().map(m -> m.settings.self()).toList());
        Peer self = new Peer("c4", "127.0.0.1:" + TestNodes.freePort());
        four.add(self);
        Member joiner = new Member(new RaftSettings(self, four, root.resolve(self.id()), SNAPSHOT_THRESHOLD,
                TRAILING_LOGS, Duration.ofSeconds(5), TestNodes.SECRET));
        List<Member> all = new ArrayList<>(members);
        all.add(joiner);
        try {
            joiner.start();
            Member leader = awaitOneLeader(members);
            assertFalse(joiner.node.isLeader());
            leader.node.setPeers(four).toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
            for (Member m : all) {
                TestNodes.await(WAIT, () -> m.node.peers().size() == 4, m.id() + " sees the four-server configuration");
            }
            submitForwarding(all, 3, values.incrementAndGet());   // through the new server, which forwards
            awaitConverged(all);
            assertEquals(leader.handler.entries(), joiner.handler.entries(), "the new server has the whole history");
        } finally {
            joiner.close();
        }
    }

    @Test
    @Order(9)
    void aLeaderStepsDownAndTheGroupElectsInALaterTerm() throws Exception {
        Member leader = awaitOneLeader(members);
        long term = leader.node.leaderTerm();
        Member follower = members.stream().filter(m -> m != leader).findFirst().orElseThrow();
        ExecutionException notLeader = assertThrows(ExecutionException.class,
                () -> follower.node.stepDown().toCompletableFuture().get(SUBMIT_SECONDS, TimeUnit.SECONDS));
        assertInstanceOf(NotLeaderException.class, notLeader.getCause());

        leader.node.stepDown().toCompletableFuture().get(SUBMIT_SECONDS, TimeUnit.SECONDS);
        TestNodes.await(WAIT, () -> members.stream().anyMatch(m -> m.node.leaderTerm() > term),
                "a leader of a later term than " + term);
        submitForwarding(members, 0, values.incrementAndGet());
        awaitConverged(members);
    }

    // --- helpers ---

    /**
     * Submits through {@code candidates.get(first)} and follows {@link NotLeaderException} to the named leader, as
     * Nomad forwards an RPC; a leader that is not a candidate (closed) or none at all means: try the next candidate.
     */
    private static Applied submitForwarding(List<Member> candidates, int first, long value) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        Member target = candidates.get(first);
        while (true) {
            try {
                return target.node.submit(command(value)).toCompletableFuture().get(SUBMIT_SECONDS, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof NotLeaderException notLeader) || System.nanoTime() - deadline >= 0) {
                    throw e;
                }
                Optional<Member> named = notLeader.leaderAddress()
                        .flatMap(a -> candidates.stream().filter(m -> m.address().equals(a)).findFirst());
                if (named.isPresent() && named.get() != target) {
                    target = named.get();
                } else {
                    target = candidates.get((candidates.indexOf(target) + 1) % candidates.size());
                    Thread.sleep(20);
                }
            }
        }
    }

    private static Member awaitOneLeader(List<Member> among) throws InterruptedException {
        TestNodes.await(WAIT, () -> among.stream().filter(m -> m.node.isLeader()).count() == 1, "exactly one leader");
        return among.stream().filter(m -> m.node.isLeader()).findFirst().orElseThrow();
    }

    /** Waits until the members applied the same entries (index, timestamp, value), in the same order. */
    private static void awaitConverged(List<Member> among) throws InterruptedException {
        Supplier<String> state = () -> among.stream()
                .map(m -> m.id() + "=" + m.handler.entries().size() + "@" + m.node.lastAppliedIndex()).toList()
                .toString();
        TestNodes.await(WAIT, () -> among.stream().map(m -> m.handler.entries()).distinct().count() == 1,
                "all applied the same entries");
        assertFalse(among.get(0).handler.entries().isEmpty(), state.get());
    }

    /** Segments of a few entries, so that purging behind a snapshot happens in a test (it only drops closed segments). */
    private static void smallLogSegments(RaftProperties p) {
        RaftServerConfigKeys.Log.setSegmentSizeMax(p, SizeInBytes.valueOf("2KB"));
        RaftServerConfigKeys.Log.setWriteBufferSize(p, SizeInBytes.valueOf("2KB"));
        RaftServerConfigKeys.Log.Appender.setBufferByteLimit(p, SizeInBytes.valueOf("1KB"));   // must fit the buffer
        RaftServerConfigKeys.Log.setPurgeGap(p, 1);
    }

    private static byte[] command(long value) {
        return ByteBuffer.allocate(Long.BYTES).putLong(0, value).array();
    }

    private static Stream<String> snapshotFiles(Member m) throws IOException {
        List<String> names = new ArrayList<>();
        try (Stream<Path> files = Files.walk(m.settings.dir())) {
            files.filter(Files::isRegularFile).map(p -> p.getFileName().toString())
                    .filter(n -> n.startsWith("snapshot.")).forEach(names::add);
        }
        return names.stream();
    }

    /** One server: its settings stay, its node and handler are replaced on restart. */
    private static final class Member {
        final RaftSettings settings;
        volatile ListHandler handler;
        volatile RaftNode node;

        Member(RaftSettings settings) {
            this.settings = settings;
        }

        String id() {
            return settings.self().id();
        }

        String address() {
            return settings.self().address();
        }

        void start() throws IOException {
            handler = new ListHandler();
            node = new RaftNode(settings, handler, System::currentTimeMillis, RaftClusterTest::smallLogSegments);
            node.start();
        }

        void restart() throws IOException {
            restart(settings);
        }

        /** Restarts on the same directory with other settings (another initial group). */
        void restart(RaftSettings with) throws IOException {
            node.close();
            handler = new ListHandler();
            node = new RaftNode(with, handler, System::currentTimeMillis, RaftClusterTest::smallLogSegments);
            node.start();
        }

        void close() {
            if (node != null) {
                node.close();
            }
        }

        @Override
        public String toString() {
            return id();
        }
    }

    /** One applied command as the handler saw it. */
    private record Entry(long index, long timestamp, long value) {
    }

    /**
     * Keeps every applied command, in order; the snapshot is the whole list. Records each restore's index and the first
     * index applied after the last restore.
     */
    private static final class ListHandler implements CommandHandler {
        private final List<Entry> entries = new CopyOnWriteArrayList<>();
        final List<Long> restores = new CopyOnWriteArrayList<>();
        final AtomicLong applyCalls = new AtomicLong();
        volatile long firstAppliedIndex = -1;

        List<Entry> entries() {
            return List.copyOf(entries);
        }

        List<Long> values() {
            return entries.stream().map(Entry::value).toList();
        }

        @Override
        public byte[] apply(long index, long timestampMillis, byte[] command) {
            if (firstAppliedIndex < 0) {
                firstAppliedIndex = index;
            }
            applyCalls.incrementAndGet();
            entries.add(new Entry(index, timestampMillis, ByteBuffer.wrap(command).getLong()));
            return command;
        }

        @Override
        public void snapshot(OutputStream out) throws IOException {
            List<Entry> copy = entries();
            DataOutputStream data = new DataOutputStream(out);
            data.writeInt(copy.size());
            for (Entry e : copy) {
                data.writeLong(e.index());
                data.writeLong(e.timestamp());
                data.writeLong(e.value());
            }
            data.flush();
        }

        @Override
        public void restore(long index, InputStream in) throws IOException {
            List<Entry> restored = new ArrayList<>();
            DataInputStream data = new DataInputStream(in);
            try {
                int n = data.readInt();
                for (int i = 0; i < n; i++) {
                    restored.add(new Entry(data.readLong(), data.readLong(), data.readLong()));
                }
            } catch (EOFException empty) {
                if (index != 0) {
                    throw empty;
                }
            }
            entries.clear();
            entries.addAll(restored);
            restores.add(index);
            firstAppliedIndex = -1;
        }
    }
}
