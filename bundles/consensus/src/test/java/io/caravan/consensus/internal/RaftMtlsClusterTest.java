package io.caravan.consensus.internal;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
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
 * The Raft port's mutual TLS on three real Ratis servers (production properties, loopback IP addresses): the group
 * forms and replicates; a Ratis client without TLS, or with a certificate bound to another key, gets no write, no
 * configuration change and no leadership transfer through; a server with another key cannot join.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class RaftMtlsClusterTest {
    @TempDir
    static Path root;

    private ThreeServers servers;

    @BeforeAll
    void startCluster() throws Exception {
        servers = new ThreeServers("t", (self, group) -> settings(self, group, TestNodes.SECRET));
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
    void theGroupFormsAndReplicatesOverMutualTls() throws Exception {
        servers.replicate(10);
    }

    @Test
    @Order(2)
    void thePortShowsACertificateBoundToTheKeyAndWantsOneBack() throws Exception {
        AtomicReference<X509Certificate[]> shown = new AtomicReference<>();
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(null, new TrustManager[] {new X509TrustManager() {   // no certificate of our own; trusts anything
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) {
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) {
                shown.set(chain);
            }

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        }}, null);
        Peer target = servers.peers.get(0);
        try (Socket tcp = new Socket()) {
            tcp.connect(new InetSocketAddress(target.host(), target.port()), 5000);
            tcp.setSoTimeout(5000);
            SSLSocket socket = (SSLSocket) tls.getSocketFactory().createSocket(tcp, target.host(), target.port(), true);
            socket.setSSLParameters(alpnH2(socket));
            int read;
            try {
                socket.startHandshake();
                read = socket.getInputStream().read();   // the server's HTTP/2 settings, were we let in
            } catch (SocketTimeoutException e) {
                throw e;
            } catch (IOException refused) {
                read = -1;
            }
            assertEquals(-1, read, "a client without a certificate was let in");
        }
        X509Certificate[] chain = shown.get();
        assertEquals(1, chain == null ? 0 : chain.length, "the server shows one certificate");
        assertDoesNotThrow(() -> PeerCertificate.check(chain, TestNodes.SECRET, Instant.now()));
        assertThrows(CertificateException.class,
                () -> PeerCertificate.check(chain, RaftSettings.randomSecret(), Instant.now()));
    }

    @Test
    @Order(3)
    void aRatisClientWithoutTheKeyGetsNothingThrough() throws Exception {
        RaftNode leader = servers.leader();
        long applied = leader.lastAppliedIndex();
        List<Peer> before = leader.configuration();
        String followerId = servers.peers.stream().map(Peer::id)
                .filter(id -> !id.equals(leader.leaderId().orElseThrow()))
                .findFirst().orElseThrow();
        Map<String, Parameters> clients = Map.of(
                "plaintext", new Parameters(),
                "another key", RaftTls.generate(RaftSettings.randomSecret()).parameters(),
                // trusts our servers, but its own certificate is bound to another key
                "an impostor", RaftTls.generate(RaftSettings.randomSecret(), TestNodes.SECRET, Instant.now())
                        .parameters());
        for (Map.Entry<String, Parameters> c : clients.entrySet()) {
            try (RaftClient client = TestNodes.client(servers.peers, c.getValue())) {
                assertThrows(IOException.class, () -> client.io().send(Message.valueOf("x")),
                        c.getKey() + ": write");
                List<RaftPeer> two = group().getPeers().stream().limit(2).toList();
                assertThrows(IOException.class, () -> client.admin().setConfiguration(two),
                        c.getKey() + ": setConfiguration");
                assertThrows(IOException.class,
                        () -> client.admin().transferLeadership(RaftPeerId.valueOf(followerId), 2000),
                        c.getKey() + ": transferLeadership");
                // Ratis' blocking group calls surface gRPC's own exception rather than an IOException.
                assertThrows(Exception.class, () -> client.getGroupManagementApi(RaftPeerId.valueOf(followerId))
                        .info(RaftNode.GROUP_ID), c.getKey() + ": group info");
            }
        }
        for (RaftNode n : servers.nodes) {
            assertEquals(before, n.configuration(), "the group's peers are unchanged");
        }
        assertEquals(applied, servers.leader().lastAppliedIndex(), "nothing was appended");
    }

    @Test
    @Order(4)
    void aServerWithAnotherKeyCannotJoin() throws Exception {
        servers.cannotJoin("t4", (self, four) -> settings(self, four, RaftSettings.randomSecret()));
    }

    // --- helpers ---

    private static RaftSettings settings(Peer self, List<Peer> group, byte[] secret) {
        return new RaftSettings(self, group, root.resolve(self.id()), RaftSettings.DEFAULT_SNAPSHOT_THRESHOLD,
                RaftSettings.DEFAULT_TRAILING_LOGS, Duration.ofSeconds(5), secret);
    }

    private RaftGroup group() {
        return RaftGroup.valueOf(RaftNode.GROUP_ID, servers.peers.stream()
                .map(p -> RaftPeer.newBuilder().setId(p.id()).setAddress(p.address()).build()).toList());
    }

    private static SSLParameters alpnH2(SSLSocket socket) {
        SSLParameters p = socket.getSSLParameters();
        p.setApplicationProtocols(new String[] {"h2"});
        return p;
    }

}
