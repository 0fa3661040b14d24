package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seed 002's cluster with TLS, end to end on real processes: a CA and certificates made with {@code caravan tls},
 * checked with {@code openssl}; three servers and a client with mutual TLS on RPC and Raft, {@code
 * verify_server_hostname} and the gossip key; then the certificates rotated on disk and picked up by a reload while
 * work keeps running. A second test serves the HTTP API over HTTPS with client certificates and checks it with curl.
 */
class TlsE2EIT {
    private static final Duration WAIT = Duration.ofSeconds(90);

    @TempDir
    Path dir;
    private final List<AgentProcess> agents = new ArrayList<>();
    private Relay relay;

    @AfterEach
    void stop() throws Exception {
        for (AgentProcess a : agents) {
            a.close();
        }
        if (relay != null) {
            relay.close();
        }
    }

    @Test
    void seed002ClusterRunsOverMutualTlsAndRotatesCertificatesByReload() throws Exception {
        // The PKI as seed 002 makes it, with caravan in place of consul: one CA, a certificate per server and client.
        Path pki = Files.createDirectories(dir.resolve("pki"));
        caravan(pki, "tls", "ca", "create");
        Path ca = pki.resolve("nomad-agent-ca.pem");
        List<Path> serverDirs = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            serverDirs.add(certificate(pki, "s" + i, "-server", "-additional-dnsname", "server" + i + ".example"));
        }
        Path clientDir = certificate(pki, "c1", "-client");
        for (Path d : serverDirs) {
            openssl("verify", "-CAfile", ca.toString(), d.resolve("global-server-nomad.pem").toString());
        }
        openssl("verify", "-CAfile", ca.toString(), clientDir.resolve("global-client-nomad.pem").toString());
        // Another CA, for an intruder.
        Path otherPki = Files.createDirectories(dir.resolve("other"));
        caravan(otherPki, "tls", "ca", "create");
        Path otherClient = certificate(otherPki, "c", "-client");

        List<ServerFiles.Ports> ports = ServerFiles.ports(5);
        String key = ServerFiles.gossipKey();
        List<AgentProcess> servers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Path d = serverDirs.get(i);
            Path config = dir.resolve("server" + (i + 1) + ".hcl");
            Files.writeString(config, ServerFiles.serverConfig(dir, i + 1, ports.get(i), ports.subList(0, 3), key)
                    + tls(ca, d.resolve("global-server-nomad.pem"), d.resolve("global-server-nomad-key.pem")));
            servers.add(start(config, "server" + (i + 1) + ".log", ports.get(i)));
        }
        AgentProcess.await("the three servers agree on a leader over TLS", WAIT, () -> {
            Set<String> leaders = servers.stream().map(ServerFiles::leaderOf).collect(Collectors.toSet());
            return leaders.size() == 1 && !leaders.contains("");
        });

        // The client reaches the first server through a relay that records every byte on the RPC connection.
        relay = new Relay(ports.get(0).rpc());
        Path clientConfig = dir.resolve("client.hcl");
        Files.writeString(clientConfig, ServerFiles.clientConfig(dir, "client1", ports.get(3),
                List.of("127.0.0.1:" + relay.port())) + tls(ca, clientDir.resolve("global-client-nomad.pem"),
                clientDir.resolve("global-client-nomad-key.pem")));
        AgentProcess client = start(clientConfig, "client1.log", ports.get(3));
        AgentProcess.await("the client node is ready", WAIT, () -> readyNodes(servers.get(1)) == 1);

        String marker = "tls-marker-" + UUID.randomUUID();
        HttpResponse<String> run = servers.get(1).call("PUT", "/v1/jobs", null, job("web", marker));
        assertEquals(200, run.statusCode(), run.body());
        AgentProcess.await("the job runs on the client", WAIT, () -> running(servers.get(1), "web").size() == 1);
        Set<String> allocs = running(servers.get(1), "web");

        // Nothing of the job crossed the RPC connection in clear, and what crossed was TLS (handshake record 0x16).
        byte[] wire = relay.captured();
        assertTrue(wire.length > 1000, "the client's RPC traffic went through the relay: " + wire.length + " bytes");
        assertEquals(0x16, wire[0] & 0xff, "the connection opened with a TLS handshake record");
        String clear = new String(wire, StandardCharsets.ISO_8859_1);
        assertFalse(clear.contains(marker) || clear.contains("/bin/sleep"), "job spec visible on the RPC port");

        // A client whose certificate another CA signed is refused at the handshake: it never registers.
        Path intruderConfig = dir.resolve("intruder.hcl");
        Files.writeString(intruderConfig, ServerFiles.clientConfig(dir, "intruder", ports.get(4),
                List.of(ports.get(0).rpcAddress())) + tls(otherPki.resolve("nomad-agent-ca.pem"),
                otherClient.resolve("global-client-nomad.pem"), otherClient.resolve("global-client-nomad-key.pem")));
        AgentProcess intruder = start(intruderConfig, "intruder.log", ports.get(4));
        Thread.sleep(5_000);
        assertEquals(1, servers.get(1).json("/v1/nodes").size(), "only the trusted client registered");
        intruder.close();

        // Rotation: new server certificates written over the old files, then a reload of each server, while a writer
        // keeps registering jobs through one server and the job keeps running.
        SSLContext probe = context(ca, clientDir, "global-client-nomad");
        BigInteger before = serverSerial(probe, ports.get(0).rpc());
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicInteger written = new AtomicInteger();
        List<String> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        Thread writer = new Thread(() -> {
            for (int n = 0; writing.get(); n++) {
                try {
                    HttpResponse<String> r = servers.get(2).call("PUT", "/v1/jobs", null, parked("w" + n));
                    if (r.statusCode() == 200) {
                        written.incrementAndGet();
                    } else {
                        failures.add(r.statusCode() + " " + r.body());
                    }
                } catch (Exception e) {
                    failures.add(e.toString());
                }
            }
        });
        writer.start();
        try {
            AgentProcess.await("writes flow", WAIT, () -> written.get() >= 5);
            Path rotated = Files.createDirectories(pki.resolve("rotated"));
            for (int i = 0; i < 3; i++) {
                Path fresh = certificate(pki, "rotated/s" + (i + 1), "-server");
                for (String f : List.of("global-server-nomad.pem", "global-server-nomad-key.pem")) {
                    // Written beside and moved over, as Vault's agent and most tools replace a file.
                    Path tmp = serverDirs.get(i).resolve(f + ".new");
                    Files.copy(fresh.resolve(f), tmp);
                    Files.move(tmp, serverDirs.get(i).resolve(f), StandardCopyOption.REPLACE_EXISTING,
                            StandardCopyOption.ATOMIC_MOVE);
                }
                HttpResponse<String> reload = servers.get(i).put("/v1/agent/reload");
                assertEquals(200, reload.statusCode(), reload.body());
                JsonNode report = AgentProcess.JSON.readTree(reload.body());
                assertTrue(report.get("Changed").toString().contains("tls.cert_file")
                        && report.get("Applied").toString().contains("tls.key_file"), reload.body());
            }
            int atReload = written.get();
            AgentProcess.await("writes go on after the reloads", WAIT, () -> written.get() >= atReload + 5);
        } finally {
            writing.set(false);
            writer.join(30_000);
        }
        assertEquals(List.of(), failures, "no write failed during the rotation");
        BigInteger after = serverSerial(context(ca, clientDir, "global-client-nomad"), ports.get(0).rpc());
        assertNotEquals(before, after, "a new connection sees the new certificate");
        assertEquals(certificate(serverDirs.get(0).resolve("global-server-nomad.pem")).getSerialNumber(), after);
        assertEquals(allocs, running(servers.get(1), "web"), "the job kept running, untouched");
        // Ready, or back to ready: on a loaded machine a heartbeat may be late, which is not what this checks.
        AgentProcess.await("the client node is ready", WAIT, () -> readyNodes(servers.get(0)) == 1);
        // A new job still reaches the client (server → client traffic over the connection the client opened).
        assertEquals(200, servers.get(0).call("PUT", "/v1/jobs", null, job("web2", marker)).statusCode());
        AgentProcess.await("a job placed after the rotation runs", WAIT,
                () -> running(servers.get(0), "web2").size() == 1);
    }

    @Test
    void httpsApiWithClientCertificatesWorksWithCurlAndRefusesTheRest() throws Exception {
        Path pki = Files.createDirectories(dir.resolve("pki"));
        caravan(pki, "tls", "ca", "create");
        Path ca = pki.resolve("nomad-agent-ca.pem");
        Path server = certificate(pki, "s", "-server");
        Path cli = certificate(pki, "cli", "-cli");
        Path other = Files.createDirectories(dir.resolve("other"));
        caravan(other, "tls", "ca", "create");
        Path otherCli = certificate(other, "cli", "-cli");

        String tls = """
                , "tls": {"http": true, "rpc": true, "verify_https_client": true, "verify_server_hostname": true,
                  "ca_file": "%s", "cert_file": "%s", "key_file": "%s"}
                """.formatted(ca, server.resolve("global-server-nomad.pem"),
                server.resolve("global-server-nomad-key.pem"));
        SSLContext https = context(ca, cli, "global-cli-nomad");
        Path agentDir = Files.createDirectories(dir.resolve("agent"));
        AgentProcess agent = AgentProcess.startDev(agentDir, tls, "agent.log", "127.0.0.1", https);
        agents.add(agent);
        String url = "https://127.0.0.1:" + agent.http + "/v1/agent/self";

        Curl ok = curl("--cacert", ca.toString(), "--cert", cli.resolve("global-cli-nomad.pem").toString(),
                "--key", cli.resolve("global-cli-nomad-key.pem").toString(), url);
        assertEquals(0, ok.exit(), ok.output());
        JsonNode self = AgentProcess.JSON.readTree(ok.output());
        assertEquals("<redacted>", self.path("config").path("TLSConfig").path("KeyFile").asText(), ok.output());

        Curl plain = curl("http://127.0.0.1:" + agent.http + "/v1/agent/self");
        assertTrue(plain.output().contains("Client sent an HTTP request to an HTTPS server."), plain.output());
        Curl noCert = curl("--cacert", ca.toString(), url);
        assertNotEquals(0, noCert.exit(), "no client certificate: refused at the handshake " + noCert.output());
        Curl wrongCa = curl("--cacert", ca.toString(), "--cert", otherCli.resolve("global-cli-nomad.pem").toString(),
                "--key", otherCli.resolve("global-cli-nomad-key.pem").toString(), url);
        assertNotEquals(0, wrongCa.exit(), "another CA's certificate: refused " + wrongCa.output());
        AgentProcess.await("the refused handshakes are logged", Duration.ofSeconds(10),
                () -> agent.log().contains("TLS handshake refused"));

        // A reload with a key that does not match the certificate is a 400 naming the file; the old one stays.
        BigInteger serving = serverSerial(https, agent.http);
        Path wrongKey = otherCli.resolve("global-cli-nomad-key.pem");
        Files.copy(wrongKey, server.resolve("global-server-nomad-key.pem"), StandardCopyOption.REPLACE_EXISTING);
        HttpResponse<String> bad = agent.put("/v1/agent/reload");
        assertEquals(400, bad.statusCode(), bad.body());
        assertTrue(bad.body().contains("global-server-nomad-key.pem") && bad.body().contains("does not match"),
                bad.body());
        assertEquals(serving, serverSerial(context(ca, cli, "global-cli-nomad"), agent.http));
        assertEquals(200, agent.get("/v1/agent/health").statusCode());

        // The CLI speaks HTTPS with Nomad's flags.
        Path log = dir.resolve("cli.log");
        Process status = AgentProcess.run(log, "node", "status", "-address", "https://127.0.0.1:" + agent.http,
                "-ca-cert", ca.toString(), "-client-cert", cli.resolve("global-cli-nomad.pem").toString(),
                "-client-key", cli.resolve("global-cli-nomad-key.pem").toString());
        assertTrue(status.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, status.exitValue(), AgentProcess.read(log));
        assertTrue(AgentProcess.read(log).contains("ready"), AgentProcess.read(log));
    }

    // ------------------------------------------------------------------------------------------------- helpers

    private AgentProcess start(Path config, String log, ServerFiles.Ports p) throws Exception {
        AgentProcess a = AgentProcess.start(config, dir.resolve(log), p.http(), p.rpc());
        agents.add(a);
        return a;
    }

    private static String tls(Path ca, Path cert, Path key) {
        return """
                tls {
                  ca_file   = "%s"
                  cert_file = "%s"
                  key_file  = "%s"
                  rpc       = true
                  verify_server_hostname = true
                }
                """.formatted(ca, cert, key);
    }

    /** {@code caravan tls cert create <role> ...} in {@code pki/<name>}, signed by the CA in {@code pki}. */
    private Path certificate(Path pki, String name, String... args) throws Exception {
        Path d = Files.createDirectories(pki.resolve(name));
        List<String> command = new ArrayList<>(List.of("tls", "cert", "create"));
        command.addAll(List.of(args));
        command.addAll(List.of("-ca", pki.resolve("nomad-agent-ca.pem").toString(),
                "-key", pki.resolve("nomad-agent-ca-key.pem").toString()));
        caravan(d, command.toArray(String[]::new));
        return d;
    }

    private void caravan(Path workdir, String... args) throws Exception {
        Path log = Files.createTempFile(dir, "caravan", ".log");
        Process p = AgentProcess.runIn(workdir, log, args);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), String.join(" ", args));
        assertEquals(0, p.exitValue(), String.join(" ", args) + ":\n" + AgentProcess.read(log));
    }

    private static void openssl(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("openssl"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), String.join(" ", command) + ": " + out);
    }

    private record Curl(int exit, String output) {}

    private static Curl curl(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("curl", "-sS", "--max-time", "10"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        return new Curl(p.exitValue(), out);
    }

    /**
     * A TLS client context from PEM files with the JDK and openssl only (no Caravan code on this class path): the
     * CA as trust, {@code <base>.pem} and {@code <base>-key.pem} in {@code certDir} as the client certificate. A new
     * context per call, so a handshake never resumes an earlier session.
     */
    private static SSLContext context(Path ca, Path certDir, String base) throws Exception {
        Path p12 = Files.createTempFile("client", ".p12");
        try {
            openssl("pkcs12", "-export", "-in", certDir.resolve(base + ".pem").toString(),
                    "-inkey", certDir.resolve(base + "-key.pem").toString(), "-out", p12.toString(),
                    "-passout", "pass:test");
            KeyStore keys = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(p12)) {
                keys.load(in, "test".toCharArray());
            }
            KeyManagerFactory km = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            km.init(keys, "test".toCharArray());
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("ca", certificate(ca));
            TrustManagerFactory tm = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tm.init(trust);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(km.getKeyManagers(), tm.getTrustManagers(), null);
            return context;
        } finally {
            Files.deleteIfExists(p12);
        }
    }

    private static X509Certificate certificate(Path pem) throws Exception {
        try (InputStream in = Files.newInputStream(pem)) {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
    }

    /** The serial of the certificate a handshake with {@code port} shows (pass a fresh context: no resumption). */
    private static BigInteger serverSerial(SSLContext client, int port) throws Exception {
        try (SSLSocket socket = (SSLSocket) client.getSocketFactory().createSocket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            socket.setSoTimeout(5_000);
            socket.startHandshake();
            return ((X509Certificate) socket.getSession().getPeerCertificates()[0]).getSerialNumber();
        }
    }

    private static long readyNodes(AgentProcess a) {
        JsonNode nodes = a.json("/v1/nodes");
        long n = 0;
        for (JsonNode node : nodes) {
            n += node.path("Status").asText().equals("ready") ? 1 : 0;
        }
        return n;
    }

    private static Set<String> running(AgentProcess a, String job) {
        Set<String> ids = new TreeSet<>();
        for (JsonNode alloc : a.json("/v1/job/" + job + "/allocations")) {
            if (alloc.path("ClientStatus").asText().equals("running")) {
                ids.add(alloc.get("ID").asText());
            }
        }
        return ids;
    }

    private static String job(String id, String marker) {
        return """
                {"Job": {"ID": "%s", "Type": "service", "Datacenters": ["dc1"], "Meta": {"marker": "%s"},
                  "TaskGroups": [{"Name": "g", "Count": 1, "Tasks": [{"Name": "t", "Driver": "raw_exec",
                  "Env": {"MARKER": "%s"}, "Config": {"command": "/bin/sleep", "args": ["300"]}}]}]}}
                """.formatted(id, marker, marker);
    }

    /** A job nothing can place: a write that leaves no work behind. */
    private static String parked(String id) {
        return """
                {"Job": {"ID": "%s", "Type": "batch", "Datacenters": ["dc1"],
                  "Constraints": [{"LTarget": "${attr.kernel.name}", "RTarget": "plan9", "Operand": "="}],
                  "TaskGroups": [{"Name": "g", "Count": 1, "Tasks": [{"Name": "t", "Driver": "raw_exec",
                  "Config": {"command": "/bin/true"}}]}]}}
                """.formatted(id);
    }

    /** A TCP relay to a local port that records the bytes both ways. */
    private static final class Relay implements AutoCloseable {
        private final ServerSocket listener = new ServerSocket(0);
        private final ByteArrayOutputStream sent = new ByteArrayOutputStream();
        private final List<Socket> open = java.util.Collections.synchronizedList(new ArrayList<>());

        Relay(int target) throws IOException {
            Thread accept = new Thread(() -> {
                while (!listener.isClosed()) {
                    try {
                        Socket in = listener.accept();
                        Socket out = new Socket("127.0.0.1", target);
                        open.add(in);
                        open.add(out);
                        pump(in.getInputStream(), out.getOutputStream());
                        pump(out.getInputStream(), in.getOutputStream());
                    } catch (IOException e) {
                        return;
                    }
                }
            }, "relay-accept");
            accept.setDaemon(true);
            accept.start();
        }

        /** Copies one direction, recording it (both directions go to one record: the search needs no order). */
        private void pump(InputStream from, OutputStream to) {
            Thread t = new Thread(() -> {
                byte[] buffer = new byte[16384];
                try {
                    for (int n = from.read(buffer); n >= 0; n = from.read(buffer)) {
                        synchronized (sent) {
                            sent.write(buffer, 0, n);
                        }
                        to.write(buffer, 0, n);
                        to.flush();
                    }
                } catch (IOException e) {
                    // a side closed
                } finally {
                    try {
                        to.close();
                    } catch (IOException ignored) {
                        // closing
                    }
                }
            }, "relay-pump");
            t.setDaemon(true);
            t.start();
        }

        int port() {
            return listener.getLocalPort();
        }

        byte[] captured() {
            synchronized (sent) {
                return sent.toByteArray();
            }
        }

        @Override
        public void close() throws IOException {
            listener.close();
            synchronized (open) {
                for (Socket s : open) {
                    s.close();
                }
            }
        }
    }
}
