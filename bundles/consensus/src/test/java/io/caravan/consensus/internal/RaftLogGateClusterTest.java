package io.caravan.consensus.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.caravan.consensus.Applied;
import io.caravan.consensus.CommandHandler;
import io.caravan.consensus.NotLeaderException;
import io.caravan.consensus.Replicator;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.retry.RetryPolicies;
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
 * The gate of the Raft log, on three real Ratis servers with the production properties: what a Ratis client on the Raft
 * port sends is never appended (even one that holds the cluster's key and passes mutual TLS), the handler's checks
 * refuse a command before it is appended, the largest allowed command replicates and a larger one is refused, and an
 * entry whose applier throws (a bug) stops every server until an operator lists its index in {@code skip-entries}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RaftLogGateClusterTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    /** Commands that start with this byte fail the handler's checks. */
    private static final byte INVALID = 'X';
    /** A command the handler's applier throws on: a bug in the applier of a valid command. */
    private static final byte[] BUG = "BUG".getBytes(StandardCharsets.UTF_8);

    @TempDir
    static Path root;

    private final List<Peer> peers = new ArrayList<>();
    private final List<Member> members = new ArrayList<>();
    private int next;

    @BeforeAll
    void startCluster() throws Exception {
        for (int i = 1; i <= 3; i++) {
            peers.add(new Peer("g" + i, "127.0.0.1:" + TestNodes.freePort()));
        }
        for (Peer self : peers) {
            members.add(new Member(new RaftSettings(self, peers, root.resolve(self.id()), 1_000_000, 10_000,
                    Duration.ofSeconds(5), TestNodes.SECRET)));
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
    void aRatisClientOnTheRaftPortCannotAppendAnything() throws Exception {
        long before = leader().node.lastAppliedIndex();
        RaftGroup group = RaftGroup.valueOf(RaftNode.GROUP_ID, peers.stream()
                .map(p -> RaftPeer.newBuilder().setId(p.id()).setAddress(p.address()).build()).toList());
        RaftProperties properties = RaftNode.properties(members.get(0).settings);
        List<String> payloads = List.of("{\"Type\":\"NoSuchCommand\",\"Command\":{}}", "", "\u0000\u0001garbage",
                "{\"Type\":\"JobRegister\",\"Command\":{\"Job\":null}}");
        try (RaftClient client = Tccl.withBundleLoader(() -> RaftClient.newBuilder().setRaftGroup(group)
                .setProperties(properties).setParameters(RaftNode.parameters(members.get(0).settings))
                .setRetryPolicy(RetryPolicies.noRetry()).build())) {
            for (String payload : payloads) {
                try {
                    RaftClientReply reply = client.io().send(Message.valueOf(payload));
                    assertFalse(reply.isSuccess(), "appended: " + payload);
                } catch (IOException refused) {
                    // refused by the leader's gate (or redirected, with no retry allowed): nothing appended
                }
            }
        }
        assertEquals(before, leader().node.lastAppliedIndex(), "nothing reached the log");
        for (Member m : members) {
            assertTrue(m.handler.applied.stream().noneMatch(c -> c.length > 0 && c[0] == '{'),
                    m.id() + " applied a foreign payload");
        }
        assertServing();
    }

    @Test
    @Order(2)
    void aCommandTheHandlerRefusesIsNeverAppended() throws Exception {
        Member leader = leader();
        long before = leader.node.lastAppliedIndex();
        ExecutionException refused = assertThrows(ExecutionException.class, () -> leader.node
                .submit(new byte[] {INVALID, 1, 2}).toCompletableFuture().get(10, TimeUnit.SECONDS));
        IllegalArgumentException cause = assertInstanceOf(IllegalArgumentException.class, refused.getCause());
        assertEquals("invalid test command", cause.getMessage());
        assertEquals(before, leader.node.lastAppliedIndex());
        assertServing();
    }

    @Test
    @Order(3)
    void theLargestCommandReplicatesAndALargerOneIsRefused() throws Exception {
        Member leader = leader();
        byte[] largest = new byte[Replicator.MAX_COMMAND_BYTES];
        Arrays.fill(largest, (byte) 'L');
        Applied applied = leader.node.submit(largest).toCompletableFuture().get(30, TimeUnit.SECONDS);
        TestNodes.await(WAIT, () -> members.stream().allMatch(m -> m.node.lastAppliedIndex() >= applied.index()),
                "every server applied the largest command");
        for (Member m : members) {
            assertTrue(m.handler.applied.stream().anyMatch(c -> c.length == Replicator.MAX_COMMAND_BYTES), m.id());
        }
        ExecutionException refused = assertThrows(ExecutionException.class, () -> leader.node
                .submit(new byte[Replicator.MAX_COMMAND_BYTES + 1]).toCompletableFuture().get(10, TimeUnit.SECONDS));
        assertInstanceOf(IllegalArgumentException.class, refused.getCause());
        assertServing();
    }

    @Test
    @Order(4)
    void anApplierBugStopsEveryServerUntilTheEntryIsSkipped() throws Exception {
        Member leader = leader();
        ExecutionException failed = assertThrows(ExecutionException.class,
                () -> leader.node.submit(BUG).toCompletableFuture().get(30, TimeUnit.SECONDS));
        assertInstanceOf(IllegalStateException.class, failed.getCause());
        // Every server that learns the entry is committed stops on it (a lagging one may not learn it before the
        // others have stopped: it then cannot commit anything either).
        TestNodes.await(WAIT, () -> members.stream()
                .filter(m -> m.handler.failedAt > 0 && !m.node.isRunning()).count() >= 2,
                "a majority stopped on the entry");
        long index = leader.handler.failedAt;
        members.stream().filter(m -> m.handler.failedAt > 0)
                .forEach(m -> assertEquals(index, m.handler.failedAt, m.id() + " failed on the same entry"));

        // What `caravan operator raft skip-entry` writes, on every server; then they start again and pass it over.
        for (Member m : members) {
            m.close();
            Files.writeString(m.settings.dir().resolve(CommandStateMachine.SKIP_FILE), "# skipped by a test\n"
                    + index + "\n");
        }
        for (Member m : members) {
            m.start();
        }
        allReady();
        assertServing();
        for (Member m : members) {
            assertEquals(0, m.handler.failedAt, m.id() + " passed over the skipped entry");
            assertTrue(m.handler.applied.stream().noneMatch(c -> Arrays.equals(c, BUG)), m.id());
        }
    }

    @Test
    void aSkipFileThatIsNotAListOfIndexesIsAnError() throws IOException {
        Path file = root.resolve("bad-skip");
        Files.writeString(file, "12\nnot-a-number\n");
        IOException e = assertThrows(IOException.class, () -> CommandStateMachine.readSkipped(file));
        assertTrue(e.getMessage().contains(":2: not a log index"), e.getMessage());
        assertEquals(java.util.Set.of(), CommandStateMachine.readSkipped(root.resolve("absent")));
    }

    @Test
    void notLeaderIsStillReportedForFollowers() throws Exception {
        Member follower = members.stream().filter(m -> !m.node.isLeader()).findFirst().orElseThrow();
        ExecutionException redirected = assertThrows(ExecutionException.class, () -> follower.node
                .submit("x".getBytes(StandardCharsets.UTF_8)).toCompletableFuture().get(10, TimeUnit.SECONDS));
        assertInstanceOf(NotLeaderException.class, redirected.getCause());
    }

    /** A write still commits on every server. */
    private void assertServing() throws Exception {
        byte[] command = ("ok-" + next++).getBytes(StandardCharsets.UTF_8);
        Applied applied = leader().node.submit(command).toCompletableFuture().get(30, TimeUnit.SECONDS);
        TestNodes.await(WAIT, () -> members.stream().allMatch(m -> m.handler.applied.stream()
                .anyMatch(c -> Arrays.equals(c, command))), "every server applied " + new String(command, StandardCharsets.UTF_8));
        assertArrayEquals(command, applied.result());
    }

    private Member leader() throws InterruptedException {
        TestNodes.await(WAIT, () -> members.stream().filter(m -> m.node.isLeader()).count() == 1, "one leader");
        return members.stream().filter(m -> m.node.isLeader()).findFirst().orElseThrow();
    }

    private static final class Member {
        final RaftSettings settings;
        volatile CheckingHandler handler;
        volatile RaftNode node;

        Member(RaftSettings settings) {
            this.settings = settings;
        }

        String id() {
            return settings.self().id();
        }

        void start() throws IOException {
            handler = new CheckingHandler();
            node = new RaftNode(settings, handler, System::currentTimeMillis);
            node.start();
        }

        void close() {
            if (node != null) {
                node.close();
            }
        }
    }

    /** Keeps what it applied; refuses commands starting with {@link #INVALID}; throws on {@link #BUG}. */
    private static final class CheckingHandler implements CommandHandler {
        final List<byte[]> applied = new CopyOnWriteArrayList<>();
        volatile long failedAt;

        @Override
        public void validate(byte[] command) {
            if (command.length > 0 && command[0] == INVALID) {
                throw new IllegalArgumentException("invalid test command");
            }
        }

        @Override
        public byte[] apply(long index, long timestampMillis, byte[] command) {
            if (Arrays.equals(command, BUG)) {
                failedAt = index;
                throw new IllegalStateException("a bug in the applier");
            }
            applied.add(command);
            return command;
        }

        @Override
        public void snapshot(OutputStream out) {
        }

        @Override
        public void restore(long index, InputStream in) {
            applied.clear();
        }
    }
}
