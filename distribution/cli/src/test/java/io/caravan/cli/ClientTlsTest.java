package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

import io.caravan.tls.AgentRole;
import io.caravan.tls.CaSubject;
import io.caravan.tls.CertificateAuthority;
import io.caravan.tls.CertificateSpec;
import io.caravan.tls.Credential;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CLI over HTTPS (-ca-cert, -ca-path, -client-cert, -client-key, -tls-server-name, -tls-skip-verify and their
 * CARAVAN_/NOMAD_ variables) against a real HTTPS server that demands a client certificate from its CA.
 */
class ClientTlsTest {
    private static final String SELF = "{\"config\":{},\"member\":{},\"stats\":{}}";

    @TempDir
    Path dir;

    private CertificateAuthority ca;
    private FakeAgent agent;
    private String prefix;

    @BeforeEach
    void start() throws Exception {
        ca = CertificateAuthority.create(CaSubject.NOMAD, 30, List.of());
        ca.credential().write(dir.resolve("ca.pem"), dir.resolve("ca-key.pem"));
        ca.issue(AgentRole.CLI.spec("global", "nomad", List.of(), List.of(), 30))
                .write(dir.resolve("cli.pem"), dir.resolve("cli-key.pem"));
        CertificateAuthority other = CertificateAuthority.create(CaSubject.NOMAD, 30, List.of());
        other.credential().write(dir.resolve("other-ca.pem"), dir.resolve("other-ca-key.pem"));
        other.issue(AgentRole.CLI.spec("global", "nomad", List.of(), List.of(), 30))
                .write(dir.resolve("stranger.pem"), dir.resolve("stranger-key.pem"));
        agent = https(ca.issue(AgentRole.SERVER.spec("global", "nomad", List.of(), List.of(), 30)));
        prefix = "Error querying agent info: " + agent.address() + ": ";
    }

    @AfterEach
    void stop() {
        agent.close();
    }

    @Test
    void caAndClientCertificateFlagsSucceedAndTheAgentSeesTheCliCertificate() {
        Cli.Result r = agentInfo(Map.of(), "-ca-cert", "ca.pem", "-client-cert", "cli.pem", "-client-key", "cli-key.pem");

        assertEquals(0, r.code(), r.err());
        assertEquals(List.of("CN=cli.global.nomad"), agent.clientSubjects());
    }

    @Test
    void environmentVariablesWorkAndCaravanBeatsNomad() {
        Map<String, String> env = Map.of("NOMAD_ADDR", agent.address(),
                "CARAVAN_CACERT", "ca.pem", "NOMAD_CACERT", "other-ca.pem",
                "NOMAD_CLIENT_CERT", "cli.pem", "NOMAD_CLIENT_KEY", "cli-key.pem");

        Cli.Result r = Cli.inDir(dir, env, "agent-info");

        assertEquals(0, r.code(), r.err());
        assertEquals(1, agent.requests().size());
    }

    @Test
    void withoutAClientCertificateTheAgentRefusesItClearly() {
        Cli.Result r = agentInfo(Map.of(), "-ca-cert", "ca.pem");

        // The JDK's HttpsServer hangs up without an alert after a TLS 1.3 handshake, so only the hint is possible.
        assertEquals(1, r.code());
        assertEquals(List.of(prefix + "TLS: the agent closed the connection; it may require a client certificate "
                + "signed by its CA (-client-cert, -client-key)"), r.errLines());
        assertEquals(List.of(), agent.requests());
    }

    @Test
    void overTls12AnAgentThatHangsUpMidHandshakeGetsTheSameHint() throws Exception {
        try (FakeAgent tls12 = https(ca.issue(AgentRole.SERVER.spec("global", "nomad", List.of(), List.of(), 30)),
                "TLSv1.2")) {
            Cli.Result none = Cli.inDir(dir, Map.of(), "agent-info", "-address", tls12.address(), "-ca-cert", "ca.pem");

            assertEquals(List.of("Error querying agent info: " + tls12.address() + ": TLS: the agent closed the "
                    + "connection; it may require a client certificate signed by its CA (-client-cert, -client-key)"),
                    none.errLines());
            assertEquals(List.of(), tls12.requests());
        }
    }

    @Test
    void aRefusalSentAsATlsAlertIsNamed() throws Exception {
        // Unlike the JDK's HttpsServer, an SSLServerSocket (as Jetty and Go) tells the client why before closing;
        // over TLS 1.2 the alert comes within the handshake.
        try (ServerSocket server = refusingServer("TLSv1.2", 2)) {
            String address = "https://127.0.0.1:" + server.getLocalPort();

            Cli.Result none = Cli.inDir(dir, Map.of(), "agent-info", "-address", address, "-ca-cert", "ca.pem");
            Cli.Result stranger = Cli.inDir(dir, Map.of(), "agent-info", "-address", address, "-ca-cert", "ca.pem",
                    "-client-cert", "stranger.pem", "-client-key", "stranger-key.pem");

            String refused = "Error querying agent info: " + address + ": TLS handshake failed: the agent refused "
                    + "the client certificate: none was given, or it is not from the agent's CA (-client-cert, -client-key)";
            assertEquals(List.of(refused), none.errLines());
            assertEquals(List.of(refused), stranger.errLines());
        }
    }

    @Test
    void overTls13TheJdkClientMissesTheAlertSoTheTimeoutCarriesTheHint() throws Exception {
        try (ServerSocket server = refusingServer("TLSv1.3", 1)) {
            String address = "https://127.0.0.1:" + server.getLocalPort();

            Cli.Result none = Cli.inDir(dir, Map.of(), "agent-info", "-address", address, "-ca-cert", "ca.pem");

            assertEquals(List.of("Error querying agent info: " + address + ": i/o timeout (over TLS this is also how "
                    + "an agent's refusal of the client certificate shows: -client-cert, -client-key)"), none.errLines());
        }
    }

    @Test
    void aClientCertificateFromAnotherCaIsRefused() {
        Cli.Result r = agentInfo(Map.of(), "-ca-cert", "ca.pem", "-client-cert", "stranger.pem",
                "-client-key", "stranger-key.pem");

        assertEquals(1, r.code());
        assertEquals(List.of(prefix + "TLS: the agent closed the connection; it may require a client certificate "
                + "signed by its CA (-client-cert, -client-key)"), r.errLines());
        assertEquals(List.of(), agent.requests());
    }

    @Test
    void anAgentCertificateFromAnotherCaIsRefused() {
        Cli.Result r = agentInfo(Map.of(), "-ca-cert", "other-ca.pem", "-client-cert", "cli.pem",
                "-client-key", "cli-key.pem");

        assertEquals(1, r.code());
        assertEquals(List.of(prefix + "TLS handshake failed: the agent's certificate is not signed by a CA this command "
                + "trusts (-ca-cert, -ca-path)"), r.errLines());
        // Without -ca-cert the JDK's public roots apply, which know nothing of this CA either.
        assertEquals(r.errLines(), agentInfo(Map.of(), "-client-cert", "cli.pem", "-client-key", "cli-key.pem").errLines());
        assertEquals(List.of(), agent.requests());
    }

    @Test
    void skipVerifyTrustsAnyAgentCertificate() {
        Cli.Result flag = agentInfo(Map.of(), "-tls-skip-verify", "-client-cert", "cli.pem", "-client-key", "cli-key.pem");
        Cli.Result env = agentInfo(Map.of("NOMAD_SKIP_VERIFY", "true"), "-client-cert", "cli.pem",
                "-client-key", "cli-key.pem");
        Cli.Result off = agentInfo(Map.of("NOMAD_SKIP_VERIFY", "true"), "-tls-skip-verify=false",
                "-client-cert", "cli.pem", "-client-key", "cli-key.pem");

        assertEquals(0, flag.code(), flag.err());
        assertEquals(0, env.code(), env.err());
        assertEquals(1, off.code(), "the flag beats the environment");
        assertEquals(2, agent.requests().size());
    }

    @Test
    void caPathReadsEveryFileOfTheDirectory() throws Exception {
        Path cas = Files.createDirectory(dir.resolve("cas"));
        Files.copy(dir.resolve("other-ca.pem"), cas.resolve("a.pem"));
        Files.copy(dir.resolve("ca.pem"), cas.resolve("b.pem"));

        Cli.Result r = agentInfo(Map.of(), "-ca-path", "cas", "-client-cert", "cli.pem", "-client-key", "cli-key.pem");

        assertEquals(0, r.code(), r.err());
        Files.writeString(cas.resolve("c.txt"), "not a certificate");
        Cli.Result bad = agentInfo(Map.of(), "-ca-path", "cas", "-client-cert", "cli.pem", "-client-key", "cli-key.pem");
        assertEquals(List.of("Error querying agent info: " + cas.resolve("c.txt")
                + ": no PEM certificate (-----BEGIN CERTIFICATE-----) found"), bad.errLines());
    }

    @Test
    void tlsServerNameIsTheOnlyNameChecked() throws Exception {
        // An agent whose certificate names neither 127.0.0.1 nor localhost, only its role.
        try (FakeAgent named = https(ca.issue(new CertificateSpec("server.global.nomad", List.of("server.global.nomad"),
                List.of(), List.of(CertificateSpec.Purpose.SERVER_AUTH, CertificateSpec.Purpose.CLIENT_AUTH), 30)))) {
            String[] mtls = {"-address", named.address(), "-ca-cert", "ca.pem", "-client-cert", "cli.pem",
                "-client-key", "cli-key.pem"};

            Cli.Result byAddress = Cli.inDir(dir, Map.of(), concat("agent-info", mtls));
            Cli.Result byName = Cli.inDir(dir, Map.of(), concat("agent-info", mtls, "-tls-server-name",
                    "server.global.nomad"));
            Cli.Result byEnv = Cli.inDir(dir, Map.of("NOMAD_TLS_SERVER_NAME", "server.global.nomad"),
                    concat("agent-info", mtls));
            Cli.Result wrongName = Cli.inDir(dir, Map.of(), concat("agent-info", mtls, "-tls-server-name",
                    "client.global.nomad"));

            assertEquals(1, byAddress.code());
            assertEquals(List.of("Error querying agent info: " + named.address() + ": TLS handshake failed: "
                    + "No subject alternative names matching IP address 127.0.0.1 found"), byAddress.errLines());
            assertEquals(0, byName.code(), byName.err());
            assertEquals(0, byEnv.code(), byEnv.err());
            assertEquals(List.of("Error querying agent info: " + named.address() + ": TLS handshake failed: "
                    + "the agent's certificate is not valid for client.global.nomad (-tls-server-name)"),
                    wrongName.errLines());
            assertEquals(2, named.requests().size());
        }
        // The usual certificate names 127.0.0.1, yet a wrong -tls-server-name still fails: no fallback to the host.
        Cli.Result wrong = agentInfo(Map.of(), "-ca-cert", "ca.pem", "-client-cert", "cli.pem", "-client-key",
                "cli-key.pem", "-tls-server-name", "server.eu.nomad");
        assertEquals(1, wrong.code());
    }

    @Test
    void badFilesAreOneLineNamingTheFile() throws Exception {
        assertEquals(List.of("Error querying agent info: " + dir.resolve("missing.pem") + ": no such file"),
                agentInfo(Map.of(), "-ca-cert", "missing.pem").errLines());
        assertEquals(List.of("Error querying agent info: " + dir.resolve("stranger-key.pem")
                + ": the private key does not match the certificate in " + dir.resolve("cli.pem")),
                agentInfo(Map.of(), "-ca-cert", "ca.pem", "-client-cert", "cli.pem", "-client-key", "stranger-key.pem")
                        .errLines());
        assertEquals(List.of("Error querying agent info: Both client cert and client key must be provided"),
                agentInfo(Map.of(), "-ca-cert", "ca.pem", "-client-cert", "cli.pem").errLines());
        Files.writeString(dir.resolve("garbage.pem"), "hello");
        Cli.Result garbage = agentInfo(Map.of(), "-ca-cert", "garbage.pem");
        assertEquals(1, garbage.code());
        assertEquals(List.of("Error querying agent info: " + dir.resolve("garbage.pem")
                + ": no PEM certificate (-----BEGIN CERTIFICATE-----) found"), garbage.errLines());
        assertEquals(List.of(), agent.requests());
    }

    @Test
    void httpsToAPlainAgentSaysSo() throws Exception {
        // A plain HTTP server answers a TLS hello with 400, as Jetty and Go's net/http do.
        try (ServerSocket plain = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread server = new Thread(() -> {
                try (Socket s = plain.accept()) {
                    s.getInputStream().read(new byte[512]);
                    s.getOutputStream().write("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                            .getBytes(StandardCharsets.US_ASCII));
                } catch (IOException e) {
                    // The client went away: the assertion below reports it.
                }
            });
            server.start();
            String address = "https://127.0.0.1:" + plain.getLocalPort();

            Cli.Result r = Cli.inDir(dir, Map.of(), "agent-info", "-address", address, "-ca-cert", "ca.pem");

            assertEquals(List.of("Error querying agent info: " + address + ": TLS handshake failed: the agent does not "
                    + "speak TLS at this address (use http://)"), r.errLines());
            server.join(10_000);
        }
    }

    @Test
    void tlsOptionsAreIgnoredForPlainHttpAndSkipVerifyTakesNoPositionalArgument() throws Exception {
        try (FakeAgent plain = new FakeAgent().json("/v1/agent/self", SELF)) {
            Cli.Result r = Cli.inDir(dir, Map.of("NOMAD_CACERT", "missing.pem"), "agent-info", "-address",
                    plain.address());
            assertEquals(0, r.code(), r.err());

            Cli.inDir(dir, Map.of(), "job", "status", "-address", plain.address(), "-tls-skip-verify", "web");
            assertTrue(plain.requests().stream().anyMatch(q -> (q.path() + q.query()).contains("web")),
                    plain.requests().toString());
        }
    }

    /**
     * A TLS server demanding a client certificate from {@link #ca}, for {@code connections} clients. After a failed
     * handshake it keeps the connection open until the client closes it, so the client reads the alert instead of
     * racing a reset.
     */
    private ServerSocket refusingServer(String protocol, int connections) throws Exception {
        SSLContext context = serverContext(ca.issue(AgentRole.SERVER.spec("global", "nomad", List.of(), List.of(), 30)));
        ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        Thread accept = new Thread(() -> {
            for (int i = 0; i < connections; i++) {
                try (Socket raw = server.accept()) {
                    SSLSocket tls = (SSLSocket) context.getSocketFactory().createSocket(raw, null, raw.getPort(), false);
                    tls.setUseClientMode(false);
                    tls.setNeedClientAuth(true);
                    tls.setEnabledProtocols(new String[] {protocol});
                    try {
                        tls.startHandshake();
                        tls.getInputStream().read();
                    } catch (IOException refused) {
                        raw.setSoTimeout(15_000);
                        while (raw.getInputStream().read() >= 0) {
                            // Until the client hangs up.
                        }
                    }
                } catch (IOException e) {
                    // The socket closed by the test.
                }
            }
        });
        accept.setDaemon(true);
        accept.start();
        return server;
    }

    private Cli.Result agentInfo(Map<String, String> env, String... flags) {
        Map<String, String> withAddress = new HashMap<>(env);
        withAddress.putIfAbsent("CARAVAN_ADDR", agent.address());
        return Cli.inDir(dir, withAddress, concat("agent-info", flags));
    }

    private static String[] concat(String first, String[] middle, String... last) {
        String[] out = new String[1 + middle.length + last.length];
        out[0] = first;
        System.arraycopy(middle, 0, out, 1, middle.length);
        System.arraycopy(last, 0, out, 1 + middle.length, last.length);
        return out;
    }

    /** An HTTPS agent presenting {@code identity} that demands a client certificate from {@link #ca}. */
    private FakeAgent https(Credential identity, String... protocols) throws Exception {
        return new FakeAgent(serverContext(identity), true, protocols).json("/v1/agent/self", SELF);
    }

    private SSLContext serverContext(Credential identity) throws Exception {
        KeyStore keys = KeyStore.getInstance("PKCS12");
        keys.load(null, null);
        keys.setKeyEntry("agent", identity.key(), new char[0], identity.chain().toArray(X509Certificate[]::new));
        KeyManagerFactory km = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        km.init(keys, new char[0]);
        KeyStore roots = KeyStore.getInstance("PKCS12");
        roots.load(null, null);
        roots.setCertificateEntry("ca", ca.certificate());
        TrustManagerFactory tm = TrustManagerFactory.getInstance("PKIX");
        tm.init(roots);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(km.getKeyManagers(), tm.getTrustManagers(), null);
        return context;
    }
}
