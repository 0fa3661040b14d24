package io.caravan.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;

import io.caravan.tls.testing.TestPki;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real handshakes on loopback sockets: swapping certificates, roles, other CAs. */
class ReloadableTlsTest {
    @TempDir
    Path dir;
    private final ExecutorService pool = Executors.newCachedThreadPool();
    private SSLServerSocket listener;

    @AfterEach
    void close() throws IOException {
        pool.shutdownNow();
        if (listener != null) {
            listener.close();
        }
    }

    private static ReloadableTls tls(TestPki pki, TestPki.Leaf leaf, boolean verifyServerHostname) throws Exception {
        TlsSettings s = pki.rpcSettings(leaf, verifyServerHostname, false);
        return new ReloadableTls(s, TlsMaterial.load(s));
    }

    /** A server that requires client certificates and echoes one byte per read, until closed. */
    private int serve(ReloadableTls server) throws IOException {
        listener = (SSLServerSocket) server.context().getServerSocketFactory().createServerSocket(0, 50,
                InetAddress.getLoopbackAddress());
        listener.setNeedClientAuth(true);
        pool.execute(() -> {
            while (!listener.isClosed()) {
                try {
                    SSLSocket s = (SSLSocket) listener.accept();
                    pool.execute(() -> {
                        try (s) {
                            for (int b = s.getInputStream().read(); b >= 0; b = s.getInputStream().read()) {
                                s.getOutputStream().write(b);
                                s.getOutputStream().flush();
                            }
                        } catch (IOException ignored) {
                            // the client went away or the handshake failed
                        }
                    });
                } catch (IOException e) {
                    return;
                }
            }
        });
        return listener.getLocalPort();
    }

    private static SSLSocket dial(SSLContext context, int port) throws IOException {
        SSLSocket s = (SSLSocket) context.getSocketFactory().createSocket(InetAddress.getLoopbackAddress(), port);
        s.setSoTimeout(5_000);
        s.startHandshake();
        return s;
    }

    private static int echo(SSLSocket s, int b) throws IOException {
        s.getOutputStream().write(b);
        s.getOutputStream().flush();
        return s.getInputStream().read();
    }

    private static BigInteger peerSerial(SSLSocket s) throws IOException {
        return ((X509Certificate) s.getSession().getPeerCertificates()[0]).getSerialNumber();
    }

    @Test
    void aReloadServesNewConnectionsTheNewCertificateWhileOpenOnesCarryOn() throws Exception {
        TestPki pki = TestPki.create(dir, "a");
        TestPki.Leaf first = pki.leaf("s1", "server.global.nomad");
        ReloadableTls server = tls(pki, first, true);
        int port = serve(server);
        ReloadableTls client = tls(pki, pki.client("global"), true);

        SSLSocket open = dial(client.context(), port);
        assertEquals(first.serial(), peerSerial(open));
        assertEquals(7, echo(open, 7));

        TestPki.Leaf second = pki.leaf("s2", "server.global.nomad");
        server.reload(TlsMaterial.load(pki.rpcSettings(second, true, false)));
        // A fresh client context: a resumed session would show the certificate of the session it resumes.
        try (SSLSocket fresh = dial(tls(pki, pki.client("global"), true).context(), port)) {
            assertEquals(second.serial(), peerSerial(fresh));
            assertEquals(8, echo(fresh, 8));
        }
        assertEquals(9, echo(open, 9), "the connection opened before the reload still works");
        open.close();
    }

    @Test
    void verifyServerHostnameRefusesAServerPresentingAClientCertificate() throws Exception {
        TestPki pki = TestPki.create(dir, "a");
        int port = serve(tls(pki, pki.client("global"), false));   // a client certificate posing as a server
        assertThrows(SSLHandshakeException.class, () -> dial(tls(pki, pki.client("global"), true).context(), port));
        try (SSLSocket lax = dial(tls(pki, pki.leaf("c2", "client.global.nomad"), false).context(), port)) {
            assertEquals(1, echo(lax, 1), "without verify_server_hostname the CA is enough, as in Nomad");
        }
    }

    @Test
    void anotherCasCertificateIsRefusedBothWays() throws Exception {
        TestPki pki = TestPki.create(dir, "a");
        TestPki other = TestPki.create(dir, "b");
        int port = serve(tls(pki, pki.server("global"), false));
        assertThrows(IOException.class, () -> echo(dial(tls(other, other.client("global"), false).context(), port), 1),
                "a client certificate from another CA");
    }

    @Test
    void theServersOnlyTrustManagerWantsTheServerName() throws Exception {
        TestPki pki = TestPki.create(dir, "a");
        ReloadableTls tls = tls(pki, pki.server("global"), false);
        X509Certificate client = pki.client("global").certificate();
        X509Certificate server = pki.server("global").certificate();
        tls.trustManager(true).checkClientTrusted(new X509Certificate[] {server}, "ECDHE_ECDSA");
        Exception e = assertThrows(java.security.cert.CertificateException.class,
                () -> tls.trustManager(true).checkClientTrusted(new X509Certificate[] {client}, "ECDHE_ECDSA"));
        assertTrue(e.getMessage().contains("server.global.nomad"), e.getMessage());
        tls.trustManager(false).checkClientTrusted(new X509Certificate[] {client}, "ECDHE_ECDSA");
        assertTrue(tls.isServer(server) && !tls.isServer(client));
        assertEquals(List.of(), List.of(tls.keyManager().getClientAliases("RSA", null) == null ? new String[0]
                : tls.keyManager().getClientAliases("RSA", null)), "an EC key is not offered for RSA");
    }
}
