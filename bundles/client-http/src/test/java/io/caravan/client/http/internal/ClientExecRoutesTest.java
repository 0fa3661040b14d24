package io.caravan.client.http.internal;

import static io.caravan.client.http.internal.ClientFsRoutesTest.assertStatus;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.caravan.api.acl.Capability;
import io.caravan.api.acl.Identity;
import io.caravan.api.exec.ExecFrames;
import io.caravan.http.ApiResponse;
import io.caravan.http.WebSocketBody;
import io.caravan.http.WebSocketPeer;
import io.caravan.plugin.api.driver.ExecSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClientExecRoutesTest {
    static final String ALLOC = "a1";
    static final String ECHO = "task=web&command=%5B%22echo%22%2C%22hi%22%5D";

    @TempDir
    Path temp;
    TestAllocs allocs = new TestAllocs();
    ClientExecRoutes routes;
    FakeSession session = new FakeSession("hi\n", "", 3);

    @BeforeEach
    void setUp() {
        allocs.dirs.put(ALLOC, temp);
        allocs.session = session;
        routes = new ClientExecRoutes(allocs);
    }

    @AfterEach
    void tearDown() {
        routes.deactivate();
    }

    private static TestRequest upgrade(String query) {
        return TestRequest.get(ALLOC, query).header("Upgrade", "websocket");
    }

    @Test
    void badRequestsAreRefusedBeforeAnythingStarts() {
        assertEquals("missing task parameter", assertStatus(400, () -> routes.exec(upgrade("command=%5B%22ls%22%5D")))
                .getMessage());
        assertEquals("command is not present", assertStatus(400, () -> routes.exec(upgrade("task=web")))
                .getMessage());
        assertEquals("command is not present",
                assertStatus(400, () -> routes.exec(upgrade("task=web&command=%5B%5D"))).getMessage());
        assertTrue(assertStatus(400, () -> routes.exec(upgrade("task=web&command=ls"))).getMessage()
                .startsWith("command must be a JSON array of strings"));
        assertEquals("expected a WebSocket upgrade request",
                assertStatus(400, () -> routes.exec(TestRequest.get(ALLOC, ECHO))).getMessage());
        assertEquals("task \"db\" not found",
                assertStatus(404, () -> routes.exec(upgrade(ECHO.replace("web", "db")))).getMessage());
        assertStatus(404, () -> routes.exec(TestRequest.get("zz", ECHO).header("Upgrade", "websocket")));
        allocs.session = null;
        assertEquals("exec not supported", assertStatus(400, () -> routes.exec(upgrade(ECHO))).getMessage());
        assertTrue(allocs.calls.isEmpty(), allocs.calls.toString());
    }

    @Test
    void aTaskWithoutFilesystemIsolationAlsoNeedsAllocNodeExec() {
        Identity execOnly = ClientRoutesAclTest.token(ClientRoutesAclTest.only("default",
                Set.of(Capability.ALLOC_EXEC)));
        assertEquals("Permission denied", assertStatus(403, () -> routes.exec(upgrade(ECHO).as(execOnly)))
                .getMessage());
        allocs.isolated = true;
        assertTrue(routes.exec(upgrade(ECHO).as(execOnly)).body() instanceof WebSocketBody);
        allocs.isolated = false;
        Identity both = ClientRoutesAclTest.token(ClientRoutesAclTest.only("default",
                Set.of(Capability.ALLOC_EXEC, Capability.ALLOC_NODE_EXEC)));
        assertTrue(routes.exec(upgrade(ECHO).as(both)).body() instanceof WebSocketBody);
    }

    @Test
    void framesCarryTheOutputThenTheExitCodeAndInputReachesTheCommand() throws Exception {
        ApiResponse response = routes.exec(upgrade(ECHO + "&tty=true"));
        assertEquals(List.of("exec a1 web [echo, hi] tty=true"), allocs.calls);
        FakePeer peer = new FakePeer();
        WebSocketBody.Listener listener = ((WebSocketBody) response.body()).open(peer);
        listener.text(ExecFrames.write(ExecFrames.Input.auth("")));
        listener.text("{\"stdin\":{\"data\":\"aW5wdXQK\"}}");
        listener.text("{}");
        listener.text("{\"tty_size\":{\"height\":40,\"width\":120}}");
        listener.text("{\"stdin\":{\"close\":true}}");
        session.exit.complete(3);
        assertTrue(peer.closed.await(5, TimeUnit.SECONDS));
        assertEquals("input\n", session.in.toString(StandardCharsets.UTF_8));
        assertTrue(session.stdinClosed);
        assertTrue(session.resized.await(5, TimeUnit.SECONDS));
        assertEquals("40x120", session.size);
        List<String> frames = peer.sent;
        assertTrue(frames.contains("{\"stdout\":{\"data\":\"aGkK\"}}"), frames.toString());
        assertTrue(frames.contains("{\"stdout\":{\"close\":true}}"), frames.toString());
        assertTrue(frames.contains("{\"stderr\":{\"close\":true}}"), frames.toString());
        assertEquals("{\"exited\":true,\"result\":{\"exit_code\":3}}", frames.get(frames.size() - 1));
        assertFalse(session.killed);
    }

    @Test
    void theCallerGoingAwayKillsTheCommand() {
        ApiResponse response = routes.exec(upgrade(ECHO));
        WebSocketBody.Listener listener = ((WebSocketBody) response.body()).open(new FakePeer());
        listener.closed();
        assertTrue(session.killed);
    }

    @Test
    void aSecondAuthFrameEndsTheSession() {
        ApiResponse response = routes.exec(upgrade(ECHO + "&ws_handshake=true"));
        FakePeer peer = new FakePeer();
        WebSocketBody.Listener listener = ((WebSocketBody) response.body()).open(peer);
        listener.text(ExecFrames.write(ExecFrames.Input.auth("a-token")));
        listener.text(ExecFrames.write(ExecFrames.Input.auth("a-token")));   // a second one ends the session
        assertTrue(session.killed);
        assertEquals(0, peer.closed.getCount());
    }

    // ---- ws_handshake with ACLs on: the token comes in the first frame ----------------------------------------

    private static final Identity EXEC_AND_NODE_EXEC = ClientRoutesAclTest.token(ClientRoutesAclTest.only("default",
            Set.of(Capability.ALLOC_EXEC, Capability.ALLOC_NODE_EXEC)));
    private static final Identity EXEC_ONLY = ClientRoutesAclTest.token(ClientRoutesAclTest.only("default",
            Set.of(Capability.ALLOC_EXEC)));
    private static final Identity READ_ONLY = ClientRoutesAclTest.token(ClientRoutesAclTest.only("default",
            Set.of(Capability.READ_JOB)));

    /** Opens a ws_handshake exec of {@code touch <marker>} and sends {@code first}; the peer it opened. */
    private FakePeer handshake(Path marker, String first) {
        allocs.runCommands = true;
        String touch = "task=web&ws_handshake=true&command=%5B%22touch%22%2C%22"
                + java.net.URLEncoder.encode(marker.toString(), StandardCharsets.UTF_8) + "%22%5D";
        ApiResponse response = routes.exec(upgrade(touch).deferred(java.util.Map.of("good", EXEC_AND_NODE_EXEC,
                "exec-only", EXEC_ONLY, "reader", READ_ONLY)));
        assertTrue(allocs.calls.isEmpty(), "nothing starts before the frame: " + allocs.calls);
        FakePeer peer = new FakePeer();
        WebSocketBody.Listener listener = ((WebSocketBody) response.body()).open(peer);
        listener.text(first);
        return peer;
    }

    @Test
    void aFrameTokenThatMayExecRunsTheCommand() throws Exception {
        Path marker = temp.resolve("ran");
        FakePeer peer = handshake(marker, ExecFrames.write(ExecFrames.Input.auth("good")));
        assertTrue(java.nio.file.Files.exists(marker));
        assertEquals(1, allocs.calls.size());
        session.exit.complete(0);
        assertTrue(peer.closed.await(5, TimeUnit.SECONDS));
        assertEquals(null, peer.status);
        assertEquals("{\"exited\":true,\"result\":{\"exit_code\":0}}", peer.sent.get(peer.sent.size() - 1));
    }

    @Test
    void aMissingUnknownOrInsufficientFrameTokenIsRefusedAndNothingRuns() {
        Path marker = temp.resolve("ran");
        List<String> refused = List.of(ExecFrames.write(ExecFrames.Input.auth("")),
                ExecFrames.write(ExecFrames.Input.auth("no-such-token")),
                ExecFrames.write(ExecFrames.Input.auth("reader")),
                ExecFrames.write(ExecFrames.Input.auth("exec-only")),     // raw_exec also needs alloc-node-exec
                ExecFrames.write(ExecFrames.Input.stdin("ls\n".getBytes(StandardCharsets.UTF_8))));
        for (String first : refused) {
            FakePeer peer = handshake(marker, first);
            assertEquals(0, peer.closed.getCount(), first);
            assertEquals(ExecSocket.REFUSED, peer.status, first);
            assertTrue(peer.reason.equals("Permission denied") || peer.reason.equals("ACL token not found")
                    || peer.reason.startsWith("unexpected handshake value"), peer.reason);
            assertTrue(peer.sent.isEmpty(), peer.sent.toString());
        }
        assertFalse(java.nio.file.Files.exists(marker));
        assertTrue(allocs.calls.isEmpty(), allocs.calls.toString());
    }

    @Test
    void aFrameTokenForAnotherNamespaceIsRefused() {
        Identity elsewhere = ClientRoutesAclTest.token(ClientRoutesAclTest.only("other",
                Set.of(Capability.ALLOC_EXEC, Capability.ALLOC_NODE_EXEC)));
        allocs.runCommands = true;
        ApiResponse response = routes.exec(upgrade(ECHO + "&ws_handshake=true")
                .deferred(java.util.Map.of("elsewhere", elsewhere)));
        FakePeer peer = new FakePeer();
        ((WebSocketBody) response.body()).open(peer).text(ExecFrames.write(ExecFrames.Input.auth("elsewhere")));
        assertEquals(ExecSocket.REFUSED, peer.status);
        assertEquals("Permission denied", peer.reason);
        assertTrue(allocs.calls.isEmpty(), allocs.calls.toString());
    }

    static final class FakePeer implements WebSocketPeer {
        final List<String> sent = new CopyOnWriteArrayList<>();
        final CountDownLatch closed = new CountDownLatch(1);
        volatile Integer status;
        volatile String reason;

        @Override
        public void close(int code, String why) {
            status = code;
            reason = why;
            closed.countDown();
        }

        @Override
        public void send(String text) {
            sent.add(text);
        }

        @Override
        public void close() {
            closed.countDown();
        }
    }

    static final class FakeSession implements ExecSession {
        final ByteArrayOutputStream in = new ByteArrayOutputStream();
        final CompletableFuture<Integer> exit = new CompletableFuture<>();
        final CountDownLatch resized = new CountDownLatch(1);
        final InputStream out;
        final InputStream err;
        volatile boolean stdinClosed;
        volatile boolean killed;
        volatile String size;

        FakeSession(String out, String err, int code) {
            this.out = new ByteArrayInputStream(out.getBytes(StandardCharsets.UTF_8));
            this.err = new ByteArrayInputStream(err.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public OutputStream stdin() {
            return new OutputStream() {
                @Override
                public void write(int b) {
                    in.write(b);
                }

                @Override
                public void close() {
                    stdinClosed = true;
                }
            };
        }

        @Override
        public InputStream stdout() {
            return out;
        }

        @Override
        public InputStream stderr() {
            return err;
        }

        @Override
        public boolean tty() {
            return true;
        }

        @Override
        public void resize(int rows, int columns) {
            size = rows + "x" + columns;
            resized.countDown();
        }

        @Override
        public CompletionStage<Integer> exitCode() {
            return exit;
        }

        @Override
        public void kill() {
            killed = true;
            exit.complete(137);
        }
    }
}
