package io.caravan.consensus.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.caravan.tls.ReloadableTls;
import io.caravan.tls.TlsMaterial;
import io.caravan.tls.TlsSettings;
import io.caravan.tls.testing.TestPki;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.ReconfigurationTimeoutException;
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
 * The Raft port under the agent's TLS ({@code tls.rpc}): three servers with {@code server.global.nomad} certificates
 * of one CA form a group and replicate; a certificate of the same CA naming only {@code client.global.nomad} neither
 * writes through a Ratis client nor joins as a server.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class RaftAgentTlsClusterTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    static Path root;

    private TestPki pki;
    private final List<Peer> peers = new ArrayList<>();
    private final List<RaftNode> nodes = new ArrayList<>();
    private final List<CountingHandler> handlers = new ArrayList<>();
    private final AtomicLong values = new AtomicLong();

    @BeforeAll
    void startCluster() throws Exception {
        pki = TestPki.create(root.resolve("pki"), "agents");
        for (int i = 1; i <= 3; i++) {
            peers.add(new Peer("s" + i, "127.0.0.1:" + TestNodes.freePort()));
        }
        for (Peer self : peers) {
            CountingHandler handler = new CountingHandler(false);
            handlers.add(handler);
            nodes.add(new RaftNode(settings(self, peers, tls(pki.leaf(self.id(), "server.global.nomad"))), handler,
                    System::currentTimeMillis));
        }
        for (RaftNode n : nodes) {
            n.start();
        }
    }

    @AfterAll
    void stopCluster() {
        nodes.forEach(RaftNode::close);
    }

    @BeforeEach
    void allReady() throws Exception {
        for (RaftNode n : nodes) {
            assertTrue(n.awaitReady(WAIT), "not ready within " + WAIT);
        }
    }

    @Test
    @Order(1)
    void serversWithServerCertificatesFormTheGroupAndReplicate() throws Exception {
        RaftNode leader = leader();
        for (int i = 0; i < 10; i++) {
            leader.submit(CountingHandler.command(values.incrementAndGet())).toCompletableFuture()
                    .get(10, TimeUnit.SECONDS);
        }
        TestNodes.await(WAIT, () -> handlers.stream().allMatch(h -> h.count == 10),
                "every server applied the 10 commands");
        assertEquals(1, handlers.stream().map(h -> h.checksum).distinct().count(), "the same entries everywhere");
    }

    @Test
    @Order(2)
    void aClientCertificateOfTheSameCaGetsNoRaftCallThrough() throws Exception {
        String leaderId = leader().leaderId().orElseThrow();
        RaftPeerId follower = RaftPeerId.valueOf(peers.stream().map(Peer::id).filter(id -> !id.equals(leaderId))
                .findFirst().orElseThrow());
        // Ratis' blocking group calls surface gRPC's own exception rather than an IOException.
        try (RaftClient ratis = TestNodes.client(peers, RaftTls.parameters(tls(pki.client("global"))))) {
            assertThrows(Exception.class, () -> ratis.getGroupManagementApi(follower).info(RaftNode.GROUP_ID));
        }
        // The same call with a server's certificate is answered: the role is what was refused.
        try (RaftClient ratis = TestNodes.client(peers,
                RaftTls.parameters(tls(pki.leaf("s9", "server.global.nomad"))))) {
            assertTrue(ratis.getGroupManagementApi(follower).info(RaftNode.GROUP_ID).isSuccess());
        }
    }

    @Test
    @Order(3)
    void aServerWhoseCertificateNamesOnlyAClientCannotJoin() throws Exception {
        Peer self = new Peer("s4", "127.0.0.1:" + TestNodes.freePort());
        List<Peer> four = new ArrayList<>(peers);
        four.add(self);
        CountingHandler handler = new CountingHandler(false);
        try (RaftNode stranger = new RaftNode(settings(self, four, tls(pki.leaf("s4", "client.global.nomad"))),
                handler, System::currentTimeMillis)) {
            stranger.start();
            RaftNode leader = leader();
            ExecutionException refused = assertThrows(ExecutionException.class,
                    () -> leader.setPeers(four).toCompletableFuture().get(120, TimeUnit.SECONDS));
            // The leader never got an append through to it, so it never caught up.
            assertInstanceOf(ReconfigurationTimeoutException.class, refused.getCause().getCause(), refused.toString());
            for (RaftNode n : nodes) {
                assertEquals(Set.copyOf(peers), Set.copyOf(n.configuration()), "the group stays at three");
            }
            assertFalse(stranger.leaderId().isPresent(), "the stranger found no leader");
            assertEquals(0, handler.count, "the stranger got no entry");
            leader().submit(CountingHandler.command(values.incrementAndGet())).toCompletableFuture()
                    .get(10, TimeUnit.SECONDS);
            TestNodes.await(WAIT, () -> handlers.stream().allMatch(h -> h.count == values.get()),
                    "the three still replicate");
        }
    }

    // --- helpers ---

    /** Without verify_server_hostname: the Raft port demands the server role by itself. */
    private ReloadableTls tls(TestPki.Leaf leaf) throws Exception {
        TlsSettings s = pki.rpcSettings(leaf, false, false);
        return new ReloadableTls(s, TlsMaterial.load(s));
    }

    private static RaftSettings settings(Peer self, List<Peer> group, ReloadableTls tls) {
        // No gossip secret: the agent's certificates alone secure the port.
        return new RaftSettings(self, group, root.resolve(self.id()), RaftSettings.DEFAULT_SNAPSHOT_THRESHOLD,
                RaftSettings.DEFAULT_TRAILING_LOGS, Duration.ofSeconds(5), null, tls);
    }

    private RaftNode leader() throws InterruptedException {
        TestNodes.await(WAIT, () -> nodes.stream().filter(RaftNode::isLeader).count() == 1, "exactly one leader");
        return nodes.stream().filter(RaftNode::isLeader).findFirst().orElseThrow();
    }
}
