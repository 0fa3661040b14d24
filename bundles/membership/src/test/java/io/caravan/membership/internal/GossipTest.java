package io.caravan.membership.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.caravan.membership.Member;
import io.caravan.membership.Member.Status;
import io.caravan.membership.MembershipException;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class GossipTest {
    private static final Duration INTERVAL = Duration.ofMillis(100);
    private static final Duration SUSPECT = Duration.ofMillis(1500);
    private static final Duration WAIT = Duration.ofSeconds(8);

    private final List<Gossip> started = new ArrayList<>();

    @AfterEach
    void closeAll() {
        for (Gossip g : started) {
            g.close();
        }
    }

    private Gossip start(String name, String key) throws IOException {
        GossipSettings s = GossipSettings.of(name + ".global", "127.0.0.1:0")
                .withTags(Map.of("role", "nomad", "region", "global", "raft_addr", "127.0.0.1:9" + name.length()))
                .withEncrypt(key)
                .withGossipInterval(INTERVAL)
                .withSuspectTimeout(SUSPECT)
                .withHttpTimeout(Duration.ofSeconds(1));
        Gossip g = new Gossip(s);
        g.start();
        started.add(g);
        return g;
    }

    private static String addr(Gossip g) {
        return g.self().address();
    }

    private static String newKey() {
        byte[] b = new byte[32];
        new SecureRandom().nextBytes(b);
        return Base64.getEncoder().encodeToString(b);
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("timed out waiting for: " + what);
            }
            Thread.sleep(20);
        }
    }

    private static Status statusOf(Gossip viewer, String name) {
        return viewer.members().stream().filter(m -> m.name().equals(name)).map(Member::status).findFirst()
                .orElse(null);
    }

    private static boolean allAlive(Gossip viewer, int n) {
        List<Member> ms = viewer.members();
        return ms.size() == n && ms.stream().allMatch(m -> m.status() == Status.ALIVE);
    }

    @Test
    void threeServersJoinFailForceLeaveAndLeave() throws Exception {
        String key = newKey();
        Gossip a = start("a", key);
        Gossip b = start("b", key);
        Gossip c = start("c", key);
        List<List<Member>> seenByA = new CopyOnWriteArrayList<>();
        a.addListener(seenByA::add);

        assertEquals(1, b.join(List.of(addr(a))));
        assertEquals(1, c.join(List.of(addr(a))));
        for (Gossip g : List.of(a, b, c)) {
            await(g.self().name() + " sees 3 alive", () -> allAlive(g, 3));
        }
        assertEquals(List.of("a.global", "b.global", "c.global"), a.members().stream().map(Member::name).toList());
        // Tags travel: c learnt b's raft_addr (through a or b).
        Member bSeenByC = c.members().stream().filter(m -> m.name().equals("b.global")).findFirst().orElseThrow();
        assertEquals("127.0.0.1:91", bSeenByC.tag("raft_addr"));
        assertEquals(b.self().address(), bSeenByC.address());
        await("listener told of 3 members", () -> seenByA.stream().anyMatch(l -> l.size() == 3));
        // A tag set later travels too: b says its Raft log runs.
        b.setTags(Map.of("raft", "1"));
        await("c sees b's new tag", () -> "1".equals(c.members().stream()
                .filter(m -> m.name().equals("b.global")).findFirst().orElseThrow().tag("raft")));

        // c stops gossiping: the others see it FAILED after the suspect timeout.
        long closedAt = System.nanoTime();
        c.close();
        await("a sees c failed", () -> statusOf(a, "c.global") == Status.FAILED);
        await("b sees c failed", () -> statusOf(b, "c.global") == Status.FAILED);
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closedAt);
        assertTrue(tookMs >= SUSPECT.toMillis() - 2 * INTERVAL.toMillis(), "failed too early: " + tookMs + " ms");
        assertEquals(Status.ALIVE, statusOf(a, "b.global"));

        // force-leave: FAILED -> LEFT, gossiped to b too.
        assertFalse(a.forceLeave("nobody.global"));
        assertFalse(a.forceLeave("b.global"), "an alive member is not force-left");
        assertTrue(a.forceLeave("c.global"));
        assertEquals(Status.LEFT, statusOf(a, "c.global"));
        await("b sees c left", () -> statusOf(b, "c.global") == Status.LEFT);

        // b leaves gracefully: a sees LEFT (not FAILED), and it stays LEFT.
        b.leave();
        assertEquals(Status.LEFT, b.self().status());
        await("a sees b left", () -> statusOf(a, "b.global") == Status.LEFT);
        Thread.sleep(SUSPECT.toMillis() + 300);
        assertEquals(Status.LEFT, statusOf(a, "b.global"));
        assertEquals(Status.ALIVE, statusOf(a, "a.global"));
    }

    @Test
    void wrongOrMissingKeyCannotJoin() throws Exception {
        String key = newKey();
        Gossip a = start("a", key);
        Gossip b = start("b", key);
        b.join(List.of(addr(a)));
        await("a and b see each other", () -> allAlive(a, 2) && allAlive(b, 2));

        Gossip wrong = start("wrong", newKey());
        MembershipException e = assertThrows(MembershipException.class, () -> wrong.join(List.of(addr(a))));
        assertTrue(e.getMessage().contains("wrong gossip key"), e.getMessage());
        assertTrue(e.getMessage().contains(addr(a)), e.getMessage());

        Gossip none = start("none", null);
        e = assertThrows(MembershipException.class, () -> none.join(List.of(addr(a), addr(b))));
        assertTrue(e.getMessage().contains("wrong gossip key"), e.getMessage());

        // A keyed server cannot join a cluster without a key either.
        Gossip plainCluster = start("plain", null);
        e = assertThrows(MembershipException.class, () -> a.join(List.of(addr(plainCluster))));
        assertTrue(e.getMessage().contains("wrong gossip key"), e.getMessage());

        Thread.sleep(5 * INTERVAL.toMillis());
        for (Gossip g : List.of(a, b)) {
            assertEquals(List.of("a.global", "b.global"), g.members().stream().map(Member::name).toList());
        }
        assertEquals(1, wrong.members().size());
        assertEquals(1, none.members().size());
        assertEquals(1, plainCluster.members().size());
    }

    @Test
    void joinReportsEveryAddressWhenNobodyAnswers() throws Exception {
        Gossip a = start("a", null);
        int deadPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            deadPort = s.getLocalPort();
        }
        MembershipException e = assertThrows(MembershipException.class,
                () -> a.join(List.of("127.0.0.1:" + deadPort, "bad:port:x:[", "[::1")));
        assertTrue(e.getMessage().contains("127.0.0.1:" + deadPort), e.getMessage());
        assertThrows(MembershipException.class, () -> a.join(List.of()));
    }

    @Test
    void keyedExchangeIsEncryptedOnTheWire() throws Exception {
        String key = newKey();
        Gossip a = start("secretname", key);

        // What a keyed member sends: capture one request with a bare socket that answers 403.
        byte[] captured;
        try (ServerSocket fake = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<byte[]> request = CompletableFuture.supplyAsync(() -> captureOneRequest(fake));
            assertThrows(MembershipException.class, () -> a.join(List.of("127.0.0.1:" + fake.getLocalPort())));
            captured = request.get(5, TimeUnit.SECONDS);
        }
        String wire = new String(captured, StandardCharsets.ISO_8859_1);
        assertTrue(wire.startsWith("POST /v1/serf/exchange "), wire);
        assertTrue(wire.toLowerCase().contains("content-type: " + Wire.SEALED_TYPE), wire);
        assertFalse(wire.contains("secretname"), "member name in clear text on the wire");
        assertFalse(wire.contains("raft_addr"), "tags in clear text on the wire");

        // What it answers: sealed too, and it opens with the key and the path as AAD.
        GossipKey k = GossipKey.parse(key);
        byte[] plainBody = Wire.encode("probe.global", List.of(new Member("probe.global", "127.0.0.1:1",
                Status.ALIVE, Map.of(), 1)));
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        URI uri = URI.create("http://" + addr(a) + Wire.PATH);
        HttpResponse<byte[]> ok = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(2))
                .header("Content-Type", Wire.SEALED_TYPE)
                .POST(HttpRequest.BodyPublishers.ofByteArray(k.seal(plainBody, Wire.PATH))).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, ok.statusCode());
        assertFalse(new String(ok.body(), StandardCharsets.ISO_8859_1).contains("secretname"));
        Wire.Exchange answer = Wire.decode(k.open(ok.body(), Wire.PATH));
        assertTrue(answer.members().stream().anyMatch(m -> m.name().equals("secretname.global")));
        assertThrows(java.security.GeneralSecurityException.class, () -> k.open(ok.body(), "/other/path"));

        // Plaintext to a keyed server: 403, and the prober is not added.
        byte[] plainProbe = Wire.encode("intruder.global", List.of(new Member("intruder.global", "127.0.0.1:2",
                Status.ALIVE, Map.of(), 1)));
        HttpResponse<String> rejected = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(2))
                .header("Content-Type", Wire.PLAIN_TYPE)
                .POST(HttpRequest.BodyPublishers.ofByteArray(plainProbe)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(403, rejected.statusCode());
        // A plaintext body labelled as sealed: 403 as well.
        HttpResponse<String> mislabelled = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(2))
                .header("Content-Type", Wire.SEALED_TYPE)
                .POST(HttpRequest.BodyPublishers.ofByteArray(plainProbe)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(403, mislabelled.statusCode());
        assertTrue(a.members().stream().noneMatch(m -> m.name().equals("intruder.global")));
        assertTrue(a.members().stream().anyMatch(m -> m.name().equals("probe.global")));
    }

    @Test
    void restartedMemberComesBackAlive() throws Exception {
        Gossip a = start("a", null);
        Gossip b = start("b", null);
        b.join(List.of(addr(a)));
        await("a sees b", () -> statusOf(a, "b.global") == Status.ALIVE);
        b.close();
        await("a sees b failed", () -> statusOf(a, "b.global") == Status.FAILED);
        Gossip b2 = start("b", null);
        b2.join(List.of(addr(a)));
        await("a sees b alive again", () -> statusOf(a, "b.global") == Status.ALIVE);
        assertEquals(b2.self().address(), a.members().stream().filter(m -> m.name().equals("b.global"))
                .findFirst().orElseThrow().address());
    }

    @Test
    void reapsLongDeadMembers() throws Exception {
        GossipSettings s = GossipSettings.of("r.global", "127.0.0.1:0").withGossipInterval(INTERVAL)
                .withSuspectTimeout(Duration.ofMillis(500)).withReapAfter(Duration.ofMillis(500));
        Gossip r = new Gossip(s);
        r.start();
        started.add(r);
        Gossip x = start("x", null);
        x.join(List.of(addr(r)));
        await("r sees x", () -> statusOf(r, "x.global") == Status.ALIVE);
        x.close();
        await("r reaps x", () -> r.members().size() == 1);
    }

    @Test
    void portInUseFailsClearly() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Gossip g = new Gossip(GossipSettings.of("p.global", "127.0.0.1:" + taken.getLocalPort()));
            IOException e = assertThrows(IOException.class, g::start);
            assertTrue(e.getMessage().contains("127.0.0.1:" + taken.getLocalPort()), e.getMessage());
            g.close();
        }
    }

    @Test
    void keysAndAddresses() {
        assertThrows(IllegalArgumentException.class, () -> GossipKey.parse("not base64!"));
        assertThrows(IllegalArgumentException.class,
                () -> GossipKey.parse(Base64.getEncoder().encodeToString(new byte[10])));
        assertEquals(null, GossipKey.parse(""));
        assertNotNull(GossipKey.parse(Base64.getEncoder().encodeToString(new byte[16])));
        GossipKey k = GossipKey.parse(Base64.getEncoder().encodeToString(new byte[24]));
        byte[] msg = "hello".getBytes(StandardCharsets.UTF_8);
        try {
            assertArrayEquals(msg, k.open(k.seal(msg, "/p"), "/p"));
        } catch (java.security.GeneralSecurityException e) {
            fail(e);
        }

        assertEquals(new HostPort("10.0.0.1", 4648), HostPort.parse("10.0.0.1", 4648));
        assertEquals(new HostPort("10.0.0.1", 5678), HostPort.parse("10.0.0.1:5678", 4648));
        assertEquals(new HostPort("2001:db8::1", 5678), HostPort.parse("[2001:db8::1]:5678", 4648));
        assertEquals(new HostPort("2001:db8::1", 4648), HostPort.parse("2001:db8::1", 4648));
        assertEquals("[2001:db8::1]:4648", HostPort.parse("2001:db8::1", 4648).toString());
        assertEquals(new HostPort("nomad-01.example.com", 4648), HostPort.parse("nomad-01.example.com", 4648));
        assertThrows(IllegalArgumentException.class, () -> HostPort.parse("host:notaport", 4648));
    }

    /** Reads one HTTP request (headers and Content-Length body) and answers 403. */
    private static byte[] captureOneRequest(ServerSocket server) {
        try {
            server.setSoTimeout(5000);
            try (Socket s = server.accept()) {
                s.setSoTimeout(5000);
                InputStream in = s.getInputStream();
                ByteArrayOutputStream buf = new ByteArrayOutputStream();
                int contentLength = -1;
                int headerEnd = -1;
                byte[] chunk = new byte[4096];
                while (headerEnd < 0 || buf.size() < headerEnd + contentLength) {
                    int n = in.read(chunk);
                    if (n < 0) {
                        break;
                    }
                    buf.write(chunk, 0, n);
                    if (headerEnd < 0) {
                        String text = buf.toString(StandardCharsets.ISO_8859_1);
                        int end = text.indexOf("\r\n\r\n");
                        if (end >= 0) {
                            headerEnd = end + 4;
                            contentLength = 0;
                            for (String line : text.substring(0, end).split("\r\n")) {
                                if (line.toLowerCase().startsWith("content-length:")) {
                                    contentLength = Integer.parseInt(line.substring(15).trim());
                                }
                            }
                        }
                    }
                }
                OutputStream out = s.getOutputStream();
                out.write("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                        .getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
                return buf.toByteArray();
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
