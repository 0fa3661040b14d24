package io.caravan.rpc.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.rpc.Endpoint;
import io.caravan.rpc.LeaderLocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RpcEngineTest {
    record Text(String value) {}

    record Blob(byte[] bytes) {}

    private final List<RpcEngine> engines = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (RpcEngine e : engines) {
            e.close();
        }
    }

    private RpcEngine server(String name, Endpoint<?, ?>... endpoints) throws Exception {
        RpcEngine e = engine("");
        e.dispatcher().add(List.of(endpoints));
        e.dispatcher().add(List.of(new Endpoint<>("Test.Who", Text.class, Text.class, Endpoint.Routing.LEADER,
                q -> CompletableFuture.completedFuture(new Text(name)))));
        e.listen("127.0.0.1", 0, Duration.ofMinutes(1));
        return e;
    }

    private RpcEngine engine(String nodeId) {
        return engine(nodeId, ServerProof.NONE);
    }

    private RpcEngine engine(String nodeId, ServerProof proof) {
        RpcEngine e = new RpcEngine(nodeId, Duration.ofSeconds(2), Duration.ofSeconds(20), proof, null);
        engines.add(e);
        return e;
    }

    private static String at(RpcEngine server) {
        return "127.0.0.1:" + server.port();
    }

    private static <T> T await(java.util.concurrent.CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static CaravanException failure(java.util.concurrent.CompletionStage<?> stage) {
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> stage.toCompletableFuture().get(10, TimeUnit.SECONDS));
        return assertInstanceOf(CaravanException.class, e.getCause());
    }

    private static final Endpoint<Text, Text> ECHO = new Endpoint<>("Test.Echo", Text.class, Text.class,
            Endpoint.Routing.LOCAL, q -> CompletableFuture.completedFuture(new Text("echo " + q.value())));

    @Test
    void callsAServerAndGetsStructuredErrorsBack() throws Exception {
        RpcEngine server = server("s1", ECHO, new Endpoint<>("Test.Fail", Text.class, Text.class,
                Endpoint.Routing.LOCAL, q -> CompletableFuture.failedFuture(
                        CaravanException.invalid("Job.Name", "must not be empty"))));
        RpcEngine client = engine("node-1");
        client.setServers(List.of(at(server)));

        assertEquals(new Text("echo hi"), await(client.call("Test.Echo", new Text("hi"), Text.class)));

        CaravanException invalid = failure(client.call("Test.Fail", new Text("x"), Text.class));
        assertEquals(ErrorCode.BAD_REQUEST, invalid.code());
        assertEquals(Optional.of("Job.Name"), invalid.field());
        assertTrue(invalid.getMessage().contains("must not be empty"), invalid.getMessage());

        CaravanException unknown = failure(client.call("Test.Nope", new Text("x"), Text.class));
        assertEquals(ErrorCode.NOT_FOUND, unknown.code());
        assertEquals(3, server.dispatcher().stats().get("Test.Echo").calls().sum()
                + server.dispatcher().stats().get("Test.Fail").calls().sum()
                + server.dispatcher().stats().get("Test.Nope").calls().sum());
        assertEquals(1, server.dispatcher().stats().get("Test.Fail").errors().sum());
    }

    @Test
    void aServerCallsAClientNodeThroughTheConnectionTheNodeOpened() throws Exception {
        RpcEngine server = server("s1", ECHO);
        RpcEngine client = engine("node-7");
        client.dispatcher().add(List.of(new Endpoint<>("ClientFS.Stat", Text.class, Text.class,
                Endpoint.Routing.LOCAL, q -> CompletableFuture.completedFuture(new Text("node-7 has " + q.value())))));
        client.setServers(List.of(at(server)));

        CaravanException before = failure(server.callNode("node-7", "ClientFS.Stat", new Text("a"), Text.class));
        assertEquals(ErrorCode.NOT_FOUND, before.code());

        await(client.call("Test.Echo", new Text("hello"), Text.class));   // the node's connection now exists
        assertEquals(new Text("node-7 has /alloc"),
                await(server.callNode("node-7", "ClientFS.Stat", new Text("/alloc"), Text.class)));
    }

    @Test
    void failsOverToTheNextServerAndMovesTheDeadOneLast() throws Exception {
        String dead;
        try (ServerSocket s = new ServerSocket(0)) {
            dead = "127.0.0.1:" + s.getLocalPort();
        }
        RpcEngine live = server("live", ECHO);
        RpcEngine client = engine("node-1");
        client.setServers(List.of(dead, at(live)));

        assertEquals(new Text("echo x"), await(client.call("Test.Echo", new Text("x"), Text.class)));
        assertEquals(List.of(at(live), dead), client.servers());

        live.close();
        CaravanException none = failure(client.call("Test.Echo", new Text("x"), Text.class));
        assertEquals(ErrorCode.NO_LEADER, none.code());
        assertTrue(none.getMessage().startsWith("No servers reachable"), none.getMessage());
    }

    @Test
    void aServerSilentPastTheAttemptTimeoutIsPassedOverAndTriedLast() throws Exception {
        CompletableFuture<Text> never = new CompletableFuture<>();
        RpcEngine silent = server("silent", new Endpoint<>("Test.Beat", Text.class, Text.class,
                Endpoint.Routing.LOCAL, q -> never));
        RpcEngine live = server("live", new Endpoint<>("Test.Beat", Text.class, Text.class,
                Endpoint.Routing.LOCAL, q -> CompletableFuture.completedFuture(new Text("beat"))));
        RpcEngine client = engine("node-1");
        client.setServers(List.of(at(silent), at(live)));
        // Connected beforehand, so that the attempt timeout measures the silence, not a slow handshake on a busy host.
        assertEquals(new Text("beat"), await(client.callAt(at(live), "Test.Beat", new Text("x"), Text.class)));
        assertEquals(List.of(at(silent), at(live)), client.servers());

        long started = System.nanoTime();
        assertEquals(new Text("beat"), await(client.call("Test.Beat", new Text("x"), Text.class,
                Duration.ofMillis(300))));
        long tookMillis = (System.nanoTime() - started) / 1_000_000;
        assertTrue(tookMillis < 5_000, "answered by the next server after the attempt timeout: " + tookMillis + " ms");
        assertEquals(List.of(at(live), at(silent)), client.servers(), "the silent server goes last");
    }

    @Test
    void anIdleConnectionToALiveServerStaysOpenThroughItsPongs() throws Exception {
        RpcEngine server = server("s1", ECHO);
        RpcEngine client = engine("node-1");
        client.dispatcher().add(List.of(new Endpoint<>("Client.Ping", Text.class, Text.class,
                Endpoint.Routing.LOCAL, q -> CompletableFuture.completedFuture(new Text("pong")))));
        client.setServers(List.of(at(server)));
        await(client.call("Test.Echo", new Text("a"), Text.class));
        Thread.sleep(RpcEngine.PEER_SILENCE.plus(RpcEngine.PING_INTERVAL.multipliedBy(2)).toMillis());
        // The server reaches the node through the connection the node opened: it was not dropped for silence.
        assertEquals(new Text("pong"), await(server.callNode("node-1", "Client.Ping", new Text("x"), Text.class)));
    }

    @Test
    void aFollowerForwardsLeaderCallsToTheLeader() throws Exception {
        RpcEngine leader = server("leader");
        RpcEngine follower = server("follower");
        leader.dispatcher().setLocator(locator(true, Optional.empty()));
        follower.dispatcher().setLocator(locator(false, Optional.of(at(leader))));
        RpcEngine client = engine("node-1");
        client.setServers(List.of(at(follower)));

        assertEquals(new Text("leader"), await(client.call("Test.Who", new Text(""), Text.class)));
        assertEquals(1, leader.dispatcher().stats().get("Test.Who").calls().sum());
        assertEquals(new Text("leader"), await(follower.dispatch("Test.Who", new Text(""), Text.class)),
                "a local dispatch follows the endpoint's routing too");

        // No leader known: the follower waits, then answers No cluster leader.
        follower.dispatcher().setLocator(locator(false, Optional.empty()));
        RpcEngine direct = engine("");
        CaravanException noLeader = failure(direct.callAt(at(follower), "Test.Who", new Text(""), Text.class));
        assertEquals(ErrorCode.NO_LEADER, noLeader.code());
    }

    @Test
    void callsOnOneConnectionOverlapAndLargeMessagesArriveWhole() throws Exception {
        CompletableFuture<Text> slowReply = new CompletableFuture<>();
        RpcEngine server = server("s1", ECHO,
                new Endpoint<>("Test.Slow", Text.class, Text.class, Endpoint.Routing.LOCAL, q -> slowReply),
                new Endpoint<>("Test.Size", Blob.class, Text.class, Endpoint.Routing.LOCAL,
                        q -> CompletableFuture.completedFuture(new Text(Integer.toString(q.bytes().length)))));
        RpcEngine client = engine("node-1");
        client.setServers(List.of(at(server)));

        CompletableFuture<Text> slow = client.call("Test.Slow", new Text(""), Text.class).toCompletableFuture();
        assertEquals(new Text("echo fast"), await(client.call("Test.Echo", new Text("fast"), Text.class)));
        assertFalse(slow.isDone());
        slowReply.complete(new Text("slow"));
        assertEquals(new Text("slow"), await(slow));

        byte[] big = new byte[5 * 1024 * 1024 + 17];
        big[big.length - 1] = 42;
        assertEquals(new Text(Integer.toString(big.length)), await(client.call("Test.Size", new Blob(big), Text.class)));
    }

    @Test
    void serverOnlyEndpointsAnswerOnlyConnectionsThatProveTheGossipKey() throws Exception {
        String key = java.util.Base64.getEncoder().encodeToString(new byte[32]);
        String otherKey = java.util.Base64.getEncoder().encodeToString(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
                12, 13, 14, 15, 16});
        RpcEngine server = engine("", ServerProof.of(key));
        server.dispatcher().add(List.of(new Endpoint<>("Raft.Apply", Text.class, Text.class, Endpoint.Routing.LOCAL,
                Endpoint.Callers.SERVERS, q -> CompletableFuture.completedFuture(new Text("applied")))));
        server.listen("127.0.0.1", 0, Duration.ofMinutes(1));

        CaravanException client = failure(engine("node-1").callAt(at(server), "Raft.Apply", new Text(""), Text.class));
        assertEquals(ErrorCode.PERMISSION_DENIED, client.code());
        CaravanException wrongKey = failure(engine("", ServerProof.of(otherKey))
                .callAt(at(server), "Raft.Apply", new Text(""), Text.class));
        assertEquals(ErrorCode.PERMISSION_DENIED, wrongKey.code());
        assertEquals(new Text("applied"), await(engine("", ServerProof.of(key))
                .callAt(at(server), "Raft.Apply", new Text(""), Text.class)));
        assertEquals(new Text("applied"), await(server.dispatch("Raft.Apply", new Text(""), Text.class)),
                "calls made inside the agent are trusted");
    }

    @Test
    void addressesGetTheDefaultRpcPort() {
        assertEquals("10.0.0.1:4647", RpcEngine.withPort("10.0.0.1"));
        assertEquals("10.0.0.1:5000", RpcEngine.withPort("10.0.0.1:5000"));
        assertEquals("[::1]:4647", RpcEngine.withPort("::1"));
        assertEquals("[::1]:4647", RpcEngine.withPort("[::1]"));
        assertEquals("[::1]:9", RpcEngine.withPort("[::1]:9"));
        assertEquals("nomad.example.com:4647", RpcEngine.withPort("nomad.example.com"));
    }

    private static LeaderLocator locator(boolean leads, Optional<String> leader) {
        return new LeaderLocator() {
            public boolean isLeader() {
                return leads;
            }

            public Optional<String> leaderRpcAddress() {
                return leader;
            }

            public List<String> serverRpcAddresses() {
                return leader.map(List::of).orElse(List.of());
            }
        };
    }
}
