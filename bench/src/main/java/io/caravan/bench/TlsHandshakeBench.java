package io.caravan.bench;

import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

import io.caravan.bench.Cluster.Server;

/**
 * TLS handshake cost on a server's RPC port (issue 14). Starts one server with {@code tls { rpc = true,
 * verify_server_hostname = true }} and certificates made by {@code caravan tls} (a {@link Cluster} of one), and
 * connects to its RPC port as a peer server would, with a server certificate of the same CA, the JDK only: the PEM
 * files are read with {@link CertificateFactory} and a PKCS#8 wrapping of the SEC1 key. Each connection is timed
 * from the TCP connect through the handshake to the first line of the answer to one small request ({@code GET /},
 * which the RPC port answers 404): in TLS 1.3 the client's handshake ends before the server has checked the client's
 * certificate, and the session ticket for resumption arrives after it, so only the answer shows both done.
 *
 * <ul>
 * <li><b>full</b>: a new {@link SSLContext} for every connection (made outside the timed part), so no session cache:
 * certificates both ways, signatures, key exchange;
 * <li><b>resumed</b>: one client context for every connection, so TLS 1.3 resumes the session with the ticket the
 * server sent on the previous connection (no certificates; the bytes from the server show it);
 * <li><b>plain</b>, for reference: the same request over plain TCP to the same server's HTTP API port (same Jetty).
 * </ul>
 *
 * One client, connections in sequence; the server's CPU time per connection comes from {@code /proc/<pid>/stat}.
 *
 * <pre>java -cp bench/target/classes io.caravan.bench.TlsHandshakeBench [--count 1000] [--warmup 300] [--no-results]
 *     [--home dir]</pre>
 */
public final class TlsHandshakeBench {
    private static final int TIMEOUT_MS = 5_000;
    private static final byte[] REQUEST = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
            .getBytes(StandardCharsets.US_ASCII);

    /** One batch of connections: latencies in ns, bytes each way per connection, CPU, the last session seen. */
    record Batch(String name, long[] latNs, long wallNs, double bytesIn, double bytesOut, long serverCpuMs,
            long clientCpuMs, String session, int resumed) {
        double pct(double p) {
            int i = (int) Math.ceil(latNs.length * p) - 1;
            return latNs[Math.max(0, Math.min(latNs.length - 1, i))] / 1e6;
        }

        double rate() {
            return latNs.length / (Arrays.stream(latNs).sum() / 1e9);
        }

        double serverCpuPerConnection() {
            return (double) serverCpuMs / latNs.length;
        }
    }

    private final int port;
    private final int httpPort;
    private final long serverPid;
    private final KeyManagerFactory keys;
    private final TrustManagerFactory trust;

    private TlsHandshakeBench(int port, int httpPort, long serverPid, KeyManagerFactory keys,
            TrustManagerFactory trust) {
        this.port = port;
        this.httpPort = httpPort;
        this.serverPid = serverPid;
        this.keys = keys;
        this.trust = trust;
    }

    public static void main(String[] args) throws Exception {
        int count = 1000;
        int warmup = 300;
        boolean record = true;
        Path root = Paths.get("").toAbsolutePath();
        Path home = root.resolve("distribution/assembly/target/caravan");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--count" -> count = Integer.parseInt(args[++i]);
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--no-results" -> record = false;
                case "--home" -> home = Path.of(args[++i]).toAbsolutePath();
                default -> {
                    System.err.println("usage: TlsHandshakeBench [--count n] [--warmup n] [--no-results] [--home dir]");
                    System.exit(2);
                }
            }
        }
        String loadBefore = Report.loadAverage();
        List<Batch> batches = new ArrayList<>();
        List<String> problems;
        try (Cluster cluster = Cluster.start(home, 1, true, i -> "")) {
            Server server = cluster.servers.get(0);
            // A peer server's credentials: the server's own certificate and key, signed by the cluster's CA.
            TlsHandshakeBench bench = new TlsHandshakeBench(server.rpc(), server.http(), cluster.pid(server),
                    keyManagers(server.cert(), server.key()), trustManagers(cluster.ca));
            SSLContext shared = bench.context();
            // Warm both JITs on every path first; the warm-up batches are not reported.
            bench.batch("warm-up full", warmup, bench::context, true);
            bench.batch("warm-up resumed", warmup, () -> shared, true);
            bench.batch("warm-up plain", warmup, null, false);
            for (int round = 0; round < 2; round++) { // twice, interleaved, to see the drift of a shared machine
                batches.add(print(bench.batch("full handshake (new SSLContext each)", count, bench::context, true)));
                batches.add(print(bench.batch("resumed (one SSLContext, TLS 1.3 ticket)", count, () -> shared, true)));
                batches.add(print(bench.batch("plain TCP, HTTP API port (reference)", count, null, false)));
            }
            problems = cluster.problems(10);
            if (!cluster.alive()) {
                throw new IllegalStateException("the server died during the run" + cluster.tail(server, 30));
            }
        }
        String section = section(batches, count, loadBefore, problems);
        System.out.println();
        System.out.print(section);
        if (record) {
            Report.append(root.resolve("bench/RESULTS.md"), section);
            System.out.println("Appended to bench/RESULTS.md");
        }
    }

    /**
     * {@code count} connections in sequence to the RPC port, or with {@code rpcPort} false to the HTTP API port;
     * with {@code contexts} null, plain TCP.
     */
    private Batch batch(String name, int count, Supplier<SSLContext> contexts, boolean rpcPort) throws Exception {
        int target = rpcPort ? port : httpPort;
        long[] lat = new long[count];
        long in = 0;
        long out = 0;
        String session = "";
        int resumed = 0;
        long server0 = StartupBench.cpuMs(serverPid);
        long client0 = ProcessHandle.current().info().totalCpuDuration().map(Duration::toMillis).orElse(-1L);
        long t0 = System.nanoTime();
        for (int i = 0; i < count; i++) {
            SSLContext context = contexts == null ? null : contexts.get();
            CountingSocket raw = new CountingSocket();
            long startMs = System.currentTimeMillis();
            long s = System.nanoTime();
            String status;
            try (Socket socket = open(raw, target, context)) {
                OutputStream o = socket.getOutputStream();
                o.write(REQUEST);
                o.flush();
                status = statusLine(socket.getInputStream());
                lat[i] = System.nanoTime() - s;
                if (socket instanceof SSLSocket ssl) {
                    SSLSession ss = ssl.getSession();
                    session = ss.getProtocol() + ", " + ss.getCipherSuite();
                    // A resumed session keeps the creation time of the session it resumes (the JDK's behaviour).
                    resumed += ss.getCreationTime() < startMs ? 1 : 0;
                }
            }
            if (!status.startsWith("HTTP/1.1 ")) {
                throw new IllegalStateException(name + ": the server answered '" + status + "'");
            }
            in += raw.received;
            out += raw.sent;
        }
        long wall = System.nanoTime() - t0;
        long server = StartupBench.cpuMs(serverPid) - server0;
        long client = ProcessHandle.current().info().totalCpuDuration().map(Duration::toMillis).orElse(-1L) - client0;
        Arrays.sort(lat);
        return new Batch(name, lat, wall, (double) in / count, (double) out / count, server, client, session,
                resumed);
    }

    /** Connects {@code raw} and, with a context, shakes hands over it; closes it on failure. */
    private static Socket open(CountingSocket raw, int port, SSLContext context) throws IOException {
        try {
            raw.connect(new InetSocketAddress("127.0.0.1", port), TIMEOUT_MS);
            raw.setSoTimeout(TIMEOUT_MS);
            raw.setTcpNoDelay(true);
            if (context == null) {
                return raw;
            }
            SSLSocket ssl = (SSLSocket) context.getSocketFactory().createSocket(raw, "127.0.0.1", port, true);
            ssl.startHandshake();
            return ssl;
        } catch (IOException | RuntimeException e) {
            raw.close();
            throw e;
        }
    }

    /**
     * What a handshake with a port negotiates, as a peer server of {@code cluster} (its first server's credentials),
     * or why it failed: proof that a port really speaks (mutual) TLS.
     */
    static String probe(Cluster cluster, int port) {
        Server peer = cluster.servers.get(0);
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keyManagers(peer.cert(), peer.key()).getKeyManagers(),
                    trustManagers(cluster.ca).getTrustManagers(), null);
            try (Socket socket = open(new CountingSocket(), port, context)) {
                SSLSession session = ((SSLSocket) socket).getSession();
                return session.getProtocol() + " " + session.getCipherSuite();
            }
        } catch (Exception e) {
            return "no TLS handshake (" + e + ")";
        }
    }

    private static String statusLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int c = in.read(); c != -1 && c != '\n'; c = in.read()) {
            line.append((char) c);
        }
        return line.toString().trim();
    }

    private SSLContext context() {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys.getKeyManagers(), trust.getTrustManagers(), null);
            return context;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static KeyManagerFactory keyManagers(Path certFile, Path keyFile) throws Exception {
        List<Certificate> chain = new ArrayList<>();
        try (InputStream in = Files.newInputStream(certFile)) {
            chain.addAll(CertificateFactory.getInstance("X.509").generateCertificates(in));
        }
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        char[] password = "bench".toCharArray();
        store.setKeyEntry("peer", privateKey(keyFile), password, chain.toArray(Certificate[]::new));
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(store, password);
        return kmf;
    }

    static TrustManagerFactory trustManagers(Path caFile) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        try (InputStream in = Files.newInputStream(caFile)) {
            store.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(store);
        return tmf;
    }

    /**
     * An EC key from PEM: PKCS#8 ({@code PRIVATE KEY}) as it is, or SEC1 ({@code EC PRIVATE KEY}, what {@code caravan
     * tls} and Nomad write) wrapped into PKCS#8, which is all the JDK's KeyFactory reads: {@code SEQUENCE { INTEGER 0,
     * SEQUENCE { id-ecPublicKey, prime256v1 }, OCTET STRING { the SEC1 structure } }}. P-256 only, as the tool makes.
     */
    static PrivateKey privateKey(Path file) throws Exception {
        String pem = Files.readString(file);
        boolean sec1 = pem.contains("-----BEGIN EC PRIVATE KEY-----");
        if (!sec1 && !pem.contains("-----BEGIN PRIVATE KEY-----")) {
            throw new IllegalArgumentException(file + ": no EC PRIVATE KEY or PRIVATE KEY in PEM");
        }
        String type = sec1 ? "EC PRIVATE KEY" : "PRIVATE KEY";
        String body = pem.substring(pem.indexOf("-----BEGIN " + type + "-----") + type.length() + 16,
                pem.indexOf("-----END " + type + "-----"));
        byte[] der = Base64.getMimeDecoder().decode(body);
        if (sec1) {
            byte[] algorithm = {0x30, 0x13, 0x06, 0x07, 0x2a, (byte) 0x86, 0x48, (byte) 0xce, 0x3d, 0x02, 0x01,
                0x06, 0x08, 0x2a, (byte) 0x86, 0x48, (byte) 0xce, 0x3d, 0x03, 0x01, 0x07};
            byte[] version = {0x02, 0x01, 0x00};
            byte[] octets = der(0x04, der);
            byte[] content = new byte[version.length + algorithm.length + octets.length];
            System.arraycopy(version, 0, content, 0, version.length);
            System.arraycopy(algorithm, 0, content, version.length, algorithm.length);
            System.arraycopy(octets, 0, content, version.length + algorithm.length, octets.length);
            der = der(0x30, content);
        }
        return KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(der));
    }

    /** A DER tag-length-value (lengths below 65,536, enough for a key). */
    private static byte[] der(int tag, byte[] content) {
        int n = content.length;
        byte[] length = n < 0x80 ? new byte[] {(byte) n}
                : n < 0x100 ? new byte[] {(byte) 0x81, (byte) n}
                : new byte[] {(byte) 0x82, (byte) (n >> 8), (byte) n};
        byte[] out = new byte[1 + length.length + n];
        out[0] = (byte) tag;
        System.arraycopy(length, 0, out, 1, length.length);
        System.arraycopy(content, 0, out, 1 + length.length, n);
        return out;
    }

    /** A TCP socket that counts the bytes the TLS layer above it reads and writes. */
    private static final class CountingSocket extends Socket {
        long received;
        long sent;

        @Override
        public InputStream getInputStream() throws IOException {
            return new FilterInputStream(super.getInputStream()) {
                @Override
                public int read() throws IOException {
                    int b = super.read();
                    received += b < 0 ? 0 : 1;
                    return b;
                }

                @Override
                public int read(byte[] b, int off, int len) throws IOException {
                    int n = super.read(b, off, len);
                    received += Math.max(0, n);
                    return n;
                }
            };
        }

        @Override
        public OutputStream getOutputStream() throws IOException {
            return new FilterOutputStream(super.getOutputStream()) {
                @Override
                public void write(int b) throws IOException {
                    sent++;
                    out.write(b);
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    sent += len;
                    out.write(b, off, len);
                }
            };
        }
    }

    private static Batch print(Batch b) {
        System.out.printf(Locale.ROOT, "%-42s n=%d p50=%.2f p99=%.2f max=%.2f ms rate=%.0f/s server cpu=%.2f ms/conn"
                        + " bytes in/out=%.0f/%.0f resumed=%d %s%n", b.name(), b.latNs().length, b.pct(0.5), b.pct(0.99),
                b.pct(1.0), b.rate(), b.serverCpuPerConnection(), b.bytesIn(), b.bytesOut(), b.resumed(), b.session());
        return b;
    }

    private static String section(List<Batch> batches, int count, String loadBefore, List<String> problems) {
        StringBuilder s = new StringBuilder();
        s.append("## ").append(ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm")))
                .append(" UTC — TLS handshake cost on the RPC port (TlsHandshakeBench)\n\n");
        s.append("- Machine: ").append(Report.machine()).append('\n');
        s.append("- Load average (1/5/15 min) before: ").append(loadBefore).append(", after: ")
                .append(Report.loadAverage()).append('\n');
        s.append("- One server (`bin/caravan agent`, bootstrap_expect = 1) with `tls { rpc = true,")
                .append(" verify_server_hostname = true }` and certificates by `caravan tls` (ECDSA P-256); the")
                .append(" harness connects to its RPC port as a peer server (a server certificate of the same CA, JDK")
                .append(" TLS client). One client, ").append(count).append(" connections in sequence per batch, each")
                .append(" timed from TCP connect through the handshake to the status line of the answer to `GET /`")
                .append(" (404): TLS 1.3 checks the client certificate and sends the resumption ticket after the")
                .append(" client's handshake ends. Full: a new `SSLContext` per connection (no session cache);")
                .append(" resumed: one `SSLContext` for all (TLS 1.3 PSK from the previous connection's ticket);")
                .append(" plain: the same request over TCP to the server's plain HTTP API port (same Jetty), for")
                .append(" reference. Each batch ran twice, interleaved, after a warm-up of each. A session counts as")
                .append(" resumed when it keeps the creation time of an earlier one (the JDK keeps it on resumption).\n");
        s.append("- Rate = connections per second of one client in sequence (1 / mean time); server CPU per")
                .append(" connection from `/proc/<pid>/stat` (10 ms ticks, summed over the batch) bounds what the")
                .append(" server could accept on its 2 cores.\n");
        s.append("- Harness JVM flags: ").append(DevAgent.harnessFlags()).append("\n\n");
        s.append("| connection | n | p50 (ms) | p99 (ms) | max (ms) | rate (/s) | server CPU per connection (ms) |")
                .append(" harness CPU per connection (ms) | bytes from / to the server | resumed | negotiated |\n")
                .append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for (Batch b : batches) {
            s.append(String.format(Locale.ROOT,
                    "| %s | %d | %.2f | %.2f | %.1f | %.0f | %.2f | %.2f | %.0f / %.0f | %s | %s |%n",
                    b.name(), b.latNs().length, b.pct(0.5), b.pct(0.99), b.pct(1.0), b.rate(),
                    b.serverCpuPerConnection(), (double) b.clientCpuMs() / b.latNs().length, b.bytesIn(),
                    b.bytesOut(), b.session().isEmpty() ? "-" : b.resumed() + "/" + b.latNs().length,
                    b.session().isEmpty() ? "-" : b.session()));
        }
        s.append('\n');
        if (problems.isEmpty()) {
            s.append("- Server log: no WARN/ERROR lines or exceptions.\n");
        } else {
            s.append("- Server log, first WARN/ERROR/exception lines:\n\n```\n").append(String.join("\n", problems))
                    .append("\n```\n");
        }
        return s.append('\n').toString();
    }
}
