package io.caravan.consensus.it;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.cleanCaches;
import static org.ops4j.pax.exam.CoreOptions.junitBundles;
import static org.ops4j.pax.exam.CoreOptions.systemPackages;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Comparator;
import java.util.Hashtable;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import javax.inject.Inject;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import javax.security.auth.x500.X500Principal;

import io.caravan.consensus.Applied;
import io.caravan.consensus.CommandHandler;
import io.caravan.consensus.Replicator;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.util.tracker.ServiceTracker;

/**
 * The bundle in Felix: it resolves with Ratis embedded, its component waits for PID {@code io.caravan.server}, the
 * agent's TLS service and a {@link CommandHandler}, starts Ratis off the activation thread, and registers a working
 * {@link Replicator}; with the agent's TLS off, the Raft port speaks mutual TLS bound to the gossip key (gRPC's TLS
 * loads inside OSGi).
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class ConsensusBundleIT {
    @Inject
    private BundleContext context;

    @Inject
    private ConfigurationAdmin configAdmin;

    @Configuration
    public Option[] configuration() throws IOException {
        List<Option> options = new ArrayList<>();
        // SLF4J comes from the class path through the system bundle, as the launcher does (STACK.md setup C).
        options.add(systemPackages("org.slf4j;version=2.0.20", "org.slf4j.event;version=2.0.20",
                "org.slf4j.helpers;version=2.0.20", "org.slf4j.spi;version=2.0.20", "sun.misc",
                // io.caravan.tls imports Jetty for its io.caravan.tls.jetty package, which nothing here loads.
                "org.eclipse.jetty.io;version=12.0.32", "org.eclipse.jetty.io.ssl;version=12.0.32",
                "org.eclipse.jetty.server;version=12.0.32",
                "org.eclipse.jetty.util;version=12.0.32", "org.eclipse.jetty.util.ssl;version=12.0.32"));
        try (Stream<Path> jars = Files.list(Paths.get(System.getProperty("caravan.it.bundles")))) {
            jars.filter(p -> p.toString().endsWith(".jar")).sorted()
                    .forEach(p -> options.add(bundle(p.toUri().toString())));
        }
        options.add(bundle(Paths.get(System.getProperty("caravan.it.bundle")).toUri().toString()));
        options.add(systemProperty("org.ops4j.pax.logging.DefaultServiceLog.level").value("WARN"));
        options.add(systemProperty("org.slf4j.simpleLogger.defaultLogLevel").value("warn"));
        options.add(systemProperty("org.slf4j.simpleLogger.log.io.caravan").value("info"));
        options.add(junitBundles());
        options.add(cleanCaches());
        return options.toArray(Option[]::new);
    }

    @Test
    public void theComponentStartsRaftAndRegistersAWorkingReplicator() throws Exception {
        Bundle consensus = Arrays.stream(context.getBundles())
                .filter(b -> "io.caravan.consensus".equals(b.getSymbolicName())).findFirst().orElseThrow();
        assertEquals(Bundle.ACTIVE, consensus.getState());
        assertNull("no Replicator without configuration", context.getServiceReference(Replicator.class));

        Path dir = Files.createTempDirectory("caravan-consensus-it-");
        Hashtable<String, Object> props = new Hashtable<>();
        props.put("node.id", "it-1");
        int raftPort = freePort();
        props.put("raft.addr", "127.0.0.1:" + raftPort);
        props.put("data.dir", dir.toString());
        props.put("raft.snapshot.threshold", 100L);
        props.put("bootstrap.expect", 1L);   // alone: no membership to wait for
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        props.put("encrypt", Base64.getEncoder().encodeToString(key));   // mutual TLS on the Raft port
        configAdmin.getConfiguration("io.caravan.server", "?").update(props);
        // The agent's TLS, which the agent always writes: off here (the Raft port's own scheme, bound to the key).
        Hashtable<String, Object> tls = new Hashtable<>();
        tls.put("tls.rpc", false);
        configAdmin.getConfiguration("io.caravan.tls", "?").update(tls);

        Thread.sleep(500);
        assertNull("no Replicator without a CommandHandler", context.getServiceReference(Replicator.class));

        ServiceTracker<Replicator, Replicator> tracker = new ServiceTracker<>(context, Replicator.class, null);
        tracker.open();
        long start = System.nanoTime();
        ServiceRegistration<CommandHandler> handler = context.registerService(CommandHandler.class, new Echo(), null);
        try {
            Replicator replicator = tracker.waitForService(30_000);
            assertNotNull("Replicator registered", replicator);
            System.out.printf("CommandHandler registered -> Replicator registered: %d ms%n",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            assertTrue(replicator.isLeader());
            Applied applied = replicator.submit(new byte[] {1, 2, 3}).toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertArrayEquals(new byte[] {1, 2, 3}, applied.result());
            assertTrue(Files.isDirectory(dir.resolve("server/raft")));
            assertRaftPortSpeaksMutualTls(raftPort, key);
        } finally {
            handler.unregister();
            tracker.close();
        }
        assertNull("Replicator withdrawn with the handler", context.getServiceReference(Replicator.class));
        configAdmin.getConfiguration("io.caravan.server", "?").delete();
        configAdmin.getConfiguration("io.caravan.tls", "?").delete();
        deleteTree(dir);
    }

    /** Removes the Raft directory; Ratis may still be closing its files, so it retries for a bounded while. */
    private static void deleteTree(Path dir) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (Files.exists(dir)) {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            } catch (IOException | UncheckedIOException e) {
                // a file vanished or appeared while walking: walk again
            }
            if (Files.exists(dir)) {
                assertTrue("removed " + dir + " in time", System.nanoTime() < deadline);
                Thread.sleep(200);
            }
        }
    }

    /**
     * gRPC's TLS works inside the bundle: the Raft port shows one certificate whose subject names the HMAC of its
     * public key under the gossip key, and lets no client without a certificate in.
     */
    private static void assertRaftPortSpeaksMutualTls(int port, byte[] key) throws Exception {
        AtomicReference<X509Certificate[]> shown = new AtomicReference<>();
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(null, new TrustManager[] {new X509TrustManager() {
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
        int read;
        try (SSLSocket socket = (SSLSocket) tls.getSocketFactory().createSocket("127.0.0.1", port)) {
            socket.setSoTimeout(5000);
            SSLParameters parameters = socket.getSSLParameters();
            parameters.setApplicationProtocols(new String[] {"h2"});
            socket.setSSLParameters(parameters);
            try {
                socket.startHandshake();
                read = socket.getInputStream().read();   // HTTP/2 settings, had the server let us in
            } catch (SocketTimeoutException e) {
                throw e;
            } catch (IOException refused) {
                read = -1;
            }
        }
        assertEquals("a client without a certificate was let in", -1, read);
        X509Certificate[] chain = shown.get();
        assertNotNull("the Raft port speaks TLS", chain);
        assertEquals(1, chain.length);
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        mac.update("caravan-raft-peer".getBytes(StandardCharsets.UTF_8));
        String binding = Base64.getUrlEncoder().withoutPadding().encodeToString(mac.doFinal(
                chain[0].getPublicKey().getEncoded()));
        assertEquals("CN=" + binding, chain[0].getSubjectX500Principal().getName(X500Principal.RFC2253));
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** Answers each command with itself; no state. */
    private static final class Echo implements CommandHandler {
        @Override
        public byte[] apply(long index, long timestampMillis, byte[] command) {
            return command;
        }

        @Override
        public void snapshot(OutputStream out) {
        }

        @Override
        public void restore(long index, InputStream in) {
        }
    }
}
