package io.caravan.consensus.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.caravan.tls.ReloadableTls;
import io.caravan.tls.TlsException;
import io.caravan.tls.TlsMaterial;
import io.caravan.tls.TlsSettings;
import io.caravan.tls.testing.TestPki;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.protocol.RaftPeerId;
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
    @TempDir
    static Path root;

    private TestPki pki;
    private ThreeServers servers;

    @BeforeAll
    void startCluster() throws Exception {
        pki = TestPki.create(root.resolve("pki"), "agents");
        servers = new ThreeServers("s", (self, group) -> settings(self, group,
                tls(pki.leaf(self.id(), "server.global.nomad"))));
    }

    @AfterAll
    void stopCluster() {
        servers.close();
    }

    @BeforeEach
    void allReady() throws Exception {
        servers.awaitReady();
    }

    @Test
    @Order(1)
    void serversWithServerCertificatesFormTheGroupAndReplicate() throws Exception {
        servers.replicate(10);
    }

    @Test
    @Order(2)
    void aClientCertificateOfTheSameCaGetsNoRaftCallThrough() throws Exception {
        String leaderId = servers.leader().leaderId().orElseThrow();
        RaftPeerId follower = RaftPeerId.valueOf(servers.peers.stream().map(Peer::id).filter(id -> !id.equals(leaderId))
                .findFirst().orElseThrow());
        // Ratis' blocking group calls surface gRPC's own exception rather than an IOException.
        try (RaftClient ratis = TestNodes.client(servers.peers, RaftTls.parameters(tls(pki.client("global"))))) {
            assertThrows(Exception.class, () -> ratis.getGroupManagementApi(follower).info(RaftNode.GROUP_ID));
        }
        // The same call with a server's certificate is answered: the role is what was refused.
        try (RaftClient ratis = TestNodes.client(servers.peers,
                RaftTls.parameters(tls(pki.leaf("s9", "server.global.nomad"))))) {
            assertTrue(ratis.getGroupManagementApi(follower).info(RaftNode.GROUP_ID).isSuccess());
        }
    }

    @Test
    @Order(3)
    void aServerWhoseCertificateNamesOnlyAClientCannotJoin() throws Exception {
        servers.cannotJoin("s4", (self, four) -> settings(self, four, tls(pki.leaf("s4", "client.global.nomad"))));
    }

    @Test
    @Order(4)
    void theRaftPortTakesTheMinimumVersionAndSuitesOfTheTlsBlock() throws Exception {
        TestPki.Leaf leaf = pki.leaf("s5", "server.global.nomad");
        TlsSettings strict = new TlsSettings(false, true, pki.caFile(), leaf.cert(), leaf.key(), false, false, false,
                "tls13", List.of("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"), "global");
        GrpcTlsConfig grpc = GrpcConfigKeys.TLS.conf(
                RaftTls.parameters(new ReloadableTls(strict, TlsMaterial.load(strict))));
        assertEquals(List.of("TLSv1.3"), grpc.getProtocols());
        assertTrue(grpc.getCipherSuites().contains("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256")
                && grpc.getCipherSuites().contains("TLS_AES_128_GCM_SHA256"), grpc.getCipherSuites().toString());
    }

    // --- helpers ---

    /** Without verify_server_hostname: the Raft port demands the server role by itself. */
    private ReloadableTls tls(TestPki.Leaf leaf) {
        TlsSettings s = pki.rpcSettings(leaf, false, false);
        try {
            return new ReloadableTls(s, TlsMaterial.load(s));
        } catch (TlsException e) {
            throw new IllegalStateException(e);
        }
    }

    private static RaftSettings settings(Peer self, List<Peer> group, ReloadableTls tls) {
        // No gossip secret: the agent's certificates alone secure the port.
        return new RaftSettings(self, group, root.resolve(self.id()), RaftSettings.DEFAULT_SNAPSHOT_THRESHOLD,
                RaftSettings.DEFAULT_TRAILING_LOGS, Duration.ofSeconds(5), null, tls);
    }
}
