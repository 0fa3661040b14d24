package io.caravan.rpc.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.net.ssl.SSLSocket;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.rpc.Endpoint;
import io.caravan.tls.ReloadableTls;
import io.caravan.tls.TlsMaterial;
import io.caravan.tls.TlsSettings;
import io.caravan.tls.testing.TestPki;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The RPC port under {@code tls.rpc} with real certificates ({@link TestPki}) on real sockets: mutual TLS both ways,
 * the certificate's role deciding who is a server, {@code rpc_upgrade_mode}, {@code verify_server_hostname}, a
 * certificate reload, and no plain text on the wire.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RpcEngineTlsTest {
    record Text(String value) {}

    private static final String GOSSIP_KEY = Base64.getEncoder().encodeToString(new byte[32]);
    private static final Endpoint<Text, Text> ECHO = new Endpoint<>("Test.Echo", Text.class, Text.class,
            Endpoint.Routing.LOCAL, q -> CompletableFuture.completedFuture(new Text("echo " + q.value())));
    private static final Endpoint<Text, Text> SERVERS_ONLY = new Endpoint<>("Raft.Apply", Text.class, Text.class,
            Endpoint.Routing.LOCAL, Endpoint.Callers.SERVERS,
            q -> CompletableFuture.completedFuture(new Text("applied")));

    @TempDir
    Path dir;

    private TestPki pki;
    private TestPki.Leaf serverCert;
    private TestPki.Leaf clientCert;
    private final List<AutoCloseable> closing = new ArrayList<>();

    @BeforeEach
    void certificates() {
        pki = TestPki.create(dir, "agents");
        serverCert = pki.server("global");
        clientCert = pki.client("global");
    }

    @AfterEach
    void close() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
    }

    @Test
    void aClientCertificateReachesEndpointsButNotServerOnlyOnesWhichAServerCertificateMay() throws Exception {
        RpcEngine server = server(tls(serverCert, false, false));
        // The gossip proof counts for nothing over TLS: the certificate's role does.
        RpcEngine client = engine("node-1", ServerProof.of(GOSSIP_KEY), tls(clientCert, true, false));
        client.dispatcher().add(List.of(new Endpoint<>("ClientFS.Stat", Text.class, Text.class,
                Endpoint.Routing.LOCAL, q -> CompletableFuture.completedFuture(new Text("node-1 has " + q.value())))));
        client.setServers(List.of(at(server)));

        assertEquals(new Text("echo hi"), await(client.call("Test.Echo", new Text("hi"), Text.class)));
        CaravanException denied = failure(client.callAt(at(server), "Raft.Apply", new Text(""), Text.class));
        assertEquals(ErrorCode.PERMISSION_DENIED, denied.code());
        assertEquals(new Text("node-1 has /alloc"),
                await(server.callNode("node-1", "ClientFS.Stat", new Text("/alloc"), Text.class)),
                "the server calls the client back over the connection the client opened");

        RpcEngine otherServer = engine("", ServerProof.NONE, tls(pki.leaf("s2", "server.global.nomad"), true, false));
        assertEquals(new Text("applied"), await(otherServer.callAt(at(server), "Raft.Apply", new Text(""),
                Text.class)));
    }

    @Test
    void diallersWithoutACertificateOfTheCaAreRefusedWithAClearError() throws Exception {
        RpcEngine server = server(tls(serverCert, false, false));
        TestPki stranger = TestPki.create(dir.resolve("other"), "stranger");
        // Trusts our CA, so only the server can be the one refusing: its certificate is from another CA.
        RpcEngine foreign = engine("node-2", ServerProof.NONE,
                tls(pki.caFile(), stranger.client("global"), false, false));
        foreign.setServers(List.of(at(server)));
        CaravanException refused = failure(foreign.call("Test.Echo", new Text("x"), Text.class));
        assertTrue(refused.getMessage().contains("TLS handshake with " + at(server) + " failed"),
                refused.getMessage());

        RpcEngine plain = engine("node-3", ServerProof.NONE, null);
        plain.setServers(List.of(at(server)));
        CaravanException plainRefused = failure(plain.call("Test.Echo", new Text("x"), Text.class));
        assertTrue(plainRefused.getMessage().contains("RPC handshake with " + at(server) + " failed")
                && plainRefused.getMessage().contains("tls.rpc"), plainRefused.getMessage());

        assertEquals(null, server.dispatcher().stats().get("Test.Echo"), "no call got through");
    }

    @Test
    void upgradeModeServesPlainTextWhereOnlyTheGossipProofMakesAServer() throws Exception {
        RpcEngine server = server(tls(serverCert, false, true));
        RpcEngine plain = engine("node-1", ServerProof.NONE, null);
        assertEquals(new Text("echo plain"), await(plain.callAt(at(server), "Test.Echo", new Text("plain"),
                Text.class)));
        assertEquals(ErrorCode.PERMISSION_DENIED,
                failure(plain.callAt(at(server), "Raft.Apply", new Text(""), Text.class)).code());
        assertEquals(new Text("applied"), await(engine("", ServerProof.of(GOSSIP_KEY), null)
                .callAt(at(server), "Raft.Apply", new Text(""), Text.class)));

        RpcEngine tlsClient = engine("node-2", ServerProof.NONE, tls(clientCert, false, false));
        assertEquals(new Text("echo tls"), await(tlsClient.callAt(at(server), "Test.Echo", new Text("tls"),
                Text.class)));
        assertEquals(ErrorCode.PERMISSION_DENIED,
                failure(tlsClient.callAt(at(server), "Raft.Apply", new Text(""), Text.class)).code());
    }

    @Test
    void verifyServerHostnameRefusesAListenerShowingAClientCertificate() throws Exception {
        RpcEngine impostor = server(tls(clientCert, false, false));
        RpcEngine lax = engine("node-1", ServerProof.NONE, tls(pki.client("global"), false, false));
        assertEquals(new Text("echo x"), await(lax.callAt(at(impostor), "Test.Echo", new Text("x"), Text.class)),
                "without verify_server_hostname any certificate of the CA will do");

        RpcEngine strict = engine("node-2", ServerProof.NONE, tls(pki.leaf("node-2", "client.global.nomad"),
                true, false));
        strict.setServers(List.of(at(impostor)));
        CaravanException refused = failure(strict.call("Test.Echo", new Text("x"), Text.class));
        assertTrue(refused.getMessage().contains("TLS handshake with " + at(impostor) + " failed")
                && refused.getMessage().contains("server.global.nomad"), refused.getMessage());
        assertEquals(1, impostor.dispatcher().stats().get("Test.Echo").calls().sum(), "only the lax call arrived");
    }

    @Test
    void aReloadKeepsOpenConnectionsWhileNewHandshakesShowTheNewCertificate() throws Exception {
        TlsSettings settings = pki.rpcSettings(serverCert, false, false);
        ReloadableTls serverTls = new ReloadableTls(settings, TlsMaterial.load(settings));
        RpcEngine server = server(serverTls);
        Relay relay = relay(server.port());
        ReloadableTls clientTls = tls(clientCert, true, false);
        RpcEngine client = engine("node-1", ServerProof.NONE, clientTls);
        client.setServers(List.of(relay.address()));
        assertEquals(new Text("echo before"), await(client.call("Test.Echo", new Text("before"), Text.class)));
        assertEquals(serverCert.serial(), servedSerial(clientTls, server.port()));

        TestPki.Leaf rotated = pki.server("global");   // the same files, a new certificate
        assertNotEquals(serverCert.serial(), rotated.serial());
        serverTls.reload(TlsMaterial.load(settings));

        assertEquals(new Text("echo after"), await(client.call("Test.Echo", new Text("after"), Text.class)));
        assertEquals(new Text("echo back"), await(server.callNode("node-1", "Test.Echo", new Text("back"),
                Text.class)), "and so did the server's way back to the client");
        assertEquals(1, relay.connections(), "the open connection carried on: no new one was dialled");
        assertEquals(rotated.serial(), servedSerial(clientTls, server.port()), "a new handshake shows the new one");
        RpcEngine late = engine("node-2", ServerProof.NONE, tls(pki.client("global"), true, false));
        assertEquals(new Text("echo new"), await(late.callAt(at(server), "Test.Echo", new Text("new"),
                Text.class)));
    }

    @Test
    void theRpcPortCarriesNoPlainText() throws Exception {
        String secret = "job-7f3a9c-secret-spec";
        RpcEngine server = server(tls(serverCert, false, false));
        Relay relay = relay(server.port());
        RpcEngine client = engine("node-1", ServerProof.NONE, tls(clientCert, true, false));
        assertEquals(new Text("echo " + secret), await(client.callAt(relay.address(), "Test.Echo", new Text(secret),
                Text.class)));
        assertTrue(relay.captured() > 0);
        assertFalse(relay.saw(secret), "the job ID crossed the wire in plain text");

        // The same capture without TLS sees it: the check above can fail.
        RpcEngine plainServer = server(null);
        Relay plainRelay = relay(plainServer.port());
        await(engine("node-1", ServerProof.NONE, null).callAt(plainRelay.address(), "Test.Echo", new Text(secret),
                Text.class));
        assertTrue(plainRelay.saw(secret));
    }

    // --- helpers ---

    private ReloadableTls tls(TestPki.Leaf leaf, boolean verifyServerHostname, boolean upgradeMode) throws Exception {
        return tls(pki.caFile(), leaf, verifyServerHostname, upgradeMode);
    }

    private static ReloadableTls tls(Path ca, TestPki.Leaf leaf, boolean verifyServerHostname, boolean upgradeMode)
            throws Exception {
        TlsSettings s = new TlsSettings(false, true, ca, leaf.cert(), leaf.key(), verifyServerHostname, false,
                upgradeMode, "tls12", List.of(), "global");
        return new ReloadableTls(s, TlsMaterial.load(s));
    }

    /** A server engine with {@link #ECHO} and {@link #SERVERS_ONLY}, holding the gossip key. */
    private RpcEngine server(ReloadableTls tls) throws Exception {
        RpcEngine e = engine("", ServerProof.of(GOSSIP_KEY), tls);
        e.dispatcher().add(List.of(ECHO, SERVERS_ONLY));
        e.listen("127.0.0.1", 0, Duration.ofMinutes(1));
        return e;
    }

    private RpcEngine engine(String nodeId, ServerProof proof, ReloadableTls tls) {
        RpcEngine e = new RpcEngine(nodeId, Duration.ofSeconds(2), Duration.ofSeconds(20), proof, tls);
        e.dispatcher().add(List.of(ECHO));
        closing.add(e);
        return e;
    }

    private static String at(RpcEngine server) {
        return "127.0.0.1:" + server.port();
    }

    /** The serial of the certificate the port shows to a fresh handshake made with {@code tls}. */
    private static BigInteger servedSerial(ReloadableTls tls, int port) throws IOException {
        try (SSLSocket socket = (SSLSocket) tls.context().getSocketFactory().createSocket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            socket.setSSLParameters(tls.parameters());
            socket.startHandshake();
            return ((X509Certificate) socket.getSession().getPeerCertificates()[0]).getSerialNumber();
        }
    }

    private static <T> T await(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    private static CaravanException failure(CompletionStage<?> stage) {
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> stage.toCompletableFuture().get(20, TimeUnit.SECONDS));
        return assertInstanceOf(CaravanException.class, e.getCause());
    }

    private Relay relay(int targetPort) throws IOException {
        Relay r = new Relay(targetPort);
        closing.add(r);
        return r;
    }

    /** A TCP relay to a local port that records every byte it carries, both ways, and counts connections. */
    private static final class Relay implements AutoCloseable {
        private final ServerSocket listener;
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private final AtomicInteger connections = new AtomicInteger();
        private final List<Socket> sockets = new CopyOnWriteArrayList<>();

        Relay(int targetPort) throws IOException {
            listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Thread accept = new Thread(() -> {
                while (!listener.isClosed()) {
                    try {
                        Socket in = listener.accept();
                        Socket out = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                        sockets.add(in);
                        sockets.add(out);
                        connections.incrementAndGet();
                        pump(in, out);
                        pump(out, in);
                    } catch (IOException closed) {
                        return;
                    }
                }
            }, "test-relay");
            accept.setDaemon(true);
            accept.start();
        }

        private void pump(Socket from, Socket to) {
            Thread t = new Thread(() -> {
                byte[] buffer = new byte[16 * 1024];
                try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                    for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                        synchronized (bytes) {
                            bytes.write(buffer, 0, n);
                        }
                        out.write(buffer, 0, n);
                    }
                } catch (IOException closed) {
                    // either side went away
                }
            }, "test-relay-pump");
            t.setDaemon(true);
            t.start();
        }

        String address() {
            return "127.0.0.1:" + listener.getLocalPort();
        }

        int connections() {
            return connections.get();
        }

        int captured() {
            synchronized (bytes) {
                return bytes.size();
            }
        }

        boolean saw(String text) {
            synchronized (bytes) {
                return bytes.toString(StandardCharsets.ISO_8859_1).contains(text);
            }
        }

        @Override
        public void close() throws IOException {
            listener.close();
            for (Socket s : sockets) {
                s.close();
            }
        }
    }
}
