package io.caravan.rpc.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.rpc.Endpoint;
import io.caravan.rpc.RpcStream;
import io.caravan.rpc.StreamEndpoint;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Streams over real sockets, both ways a stream can be opened: by the dialling agent to a server (it travels on a
 * {@link JdkChannel} there, a {@link JettyChannel} at the server) and by a server to a node through the connection
 * the node opened (the other way round).
 */
class RpcStreamTest {
    record Text(String value) {}

    /** Who opens the stream. */
    enum Opener { DIALLER, SERVER }

    private static final String NODE = "node-s";
    private final List<RpcEngine> engines = new ArrayList<>();
    /** Streams the handler side accepted. */
    private final BlockingQueue<RpcStream> accepted = new LinkedBlockingQueue<>();
    private RpcEngine server;
    private RpcEngine client;

    @AfterEach
    void close() throws Exception {
        for (RpcEngine e : engines) {
            e.close();
        }
    }

    /** Both ends, each serving {@code streams}; the node's connection to the server exists. */
    private void start(StreamEndpoint<?>... streams) throws Exception {
        server = new RpcEngine("", Duration.ofSeconds(2), Duration.ofSeconds(20), ServerProof.NONE, null);
        engines.add(server);
        server.dispatcher().add(List.of(new Endpoint<>("Test.Ping", Text.class, Text.class, Endpoint.Routing.LOCAL,
                q -> CompletableFuture.completedFuture(q))));
        server.dispatcher().addStreams(List.of(streams));
        server.listen("127.0.0.1", 0, Duration.ofMinutes(1));
        client = new RpcEngine(NODE, Duration.ofSeconds(2), Duration.ofSeconds(20), ServerProof.NONE, null);
        engines.add(client);
        client.dispatcher().addStreams(List.of(streams));
        client.setServers(List.of("127.0.0.1:" + server.port()));
        await(client.call("Test.Ping", new Text("hi"), Text.class));
    }

    private RpcStream open(Opener opener, String method, String request) throws Exception {
        return await(opener == Opener.DIALLER
                ? client.openStreamAt("127.0.0.1:" + server.port(), method, new Text(request))
                : server.openNodeStream(NODE, method, new Text(request)));
    }

    private static <T> T await(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** What a receiver got: the frames, as text, and how it ended. */
    static final class Collected implements RpcStream.Receiver {
        final List<String> frames = new CopyOnWriteArrayList<>();
        final CompletableFuture<CaravanException> ended = new CompletableFuture<>();

        @Override
        public CompletionStage<?> data(byte[] frame) {
            frames.add(new String(frame, StandardCharsets.UTF_8));
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public void end(CaravanException error) {
            ended.complete(error);
        }

        CaravanException awaitEnd() throws Exception {
            return ended.get(10, TimeUnit.SECONDS);
        }
    }

    /** Echoes each frame back upper-cased, after a first frame naming the request; closes when the opener does. */
    private StreamEndpoint<Text> echo() {
        return new StreamEndpoint<>("Test.Echo", Text.class, Endpoint.Callers.ANY, (request, stream) -> {
            accepted.add(stream);
            stream.send(bytes("open " + request.value()));
            stream.receive(new RpcStream.Receiver() {
                @Override
                public CompletionStage<?> data(byte[] frame) {
                    return stream.send(bytes(new String(frame, StandardCharsets.UTF_8).toUpperCase()));
                }

                @Override
                public void end(CaravanException error) {
                    if (error == null) {
                        stream.close();
                    }
                }
            });
        });
    }

    @ParameterizedTest
    @EnumSource(Opener.class)
    void carriesFramesBothWaysInOrderAndClosesFromTheOpener(Opener opener) throws Exception {
        start(echo());
        RpcStream stream = open(opener, "Test.Echo", "x");
        Collected got = new Collected();
        stream.receive(got);
        List<String> expected = new ArrayList<>(List.of("open x"));
        for (int i = 0; i < 500; i++) {
            await(stream.send(bytes("frame " + i)));
            expected.add("FRAME " + i);
        }
        stream.close();

        assertNull(got.awaitEnd(), "a normal end");
        assertEquals(expected, got.frames);
        await(stream.whenDone());
        await(accepted.poll(10, TimeUnit.SECONDS).whenDone());
    }

    @ParameterizedTest
    @EnumSource(Opener.class)
    void theHandlerSideClosesFirst(Opener opener) throws Exception {
        start(new StreamEndpoint<>("Test.Three", Text.class, Endpoint.Callers.ANY, (request, stream) -> {
            accepted.add(stream);
            stream.send(bytes("1"));
            stream.send(bytes("2"));
            stream.send(bytes("3"));
            stream.close();
            stream.receive(new Collected());
        }));
        RpcStream stream = open(opener, "Test.Three", "");
        Collected got = new Collected();
        stream.receive(got);

        assertNull(got.awaitEnd());
        assertEquals(List.of("1", "2", "3"), got.frames);
        await(stream.send(bytes("late")));      // a half-close: the opener may still send until it closes
        stream.close();
        await(stream.whenDone());
    }

    private static Throwable assertThrowsCause(CompletionStage<?> stage) throws Exception {
        try {
            await(stage);
            return null;
        } catch (java.util.concurrent.ExecutionException e) {
            return e.getCause();
        }
    }

    @ParameterizedTest
    @EnumSource(Opener.class)
    void errorsReachTheOtherSideWithTheirCode(Opener opener) throws Exception {
        start(echo(), new StreamEndpoint<>("Test.Refuse", Text.class, Endpoint.Callers.ANY, (request, stream) -> {
            throw CaravanException.notFound("Unknown allocation \"" + request.value() + "\"");
        }));
        Collected refused = new Collected();
        open(opener, "Test.Refuse", "a1").receive(refused);
        CaravanException error = refused.awaitEnd();
        assertEquals(ErrorCode.NOT_FOUND, error.code());
        assertEquals("Unknown allocation \"a1\"", error.getMessage());

        Collected unknown = new Collected();
        open(opener, "Test.Nothing", "").receive(unknown);
        assertEquals(ErrorCode.NOT_FOUND, unknown.awaitEnd().code());

        // The opener fails a stream in the middle: the handler's side ends with that error.
        RpcStream stream = open(opener, "Test.Echo", "y");
        stream.receive(new Collected());
        RpcStream there = accepted.poll(10, TimeUnit.SECONDS);
        assertNotNull(there);
        stream.fail(CaravanException.badRequest("stop"));
        CaravanException seen = (CaravanException) assertThrowsCause(there.whenDone());
        assertEquals(ErrorCode.BAD_REQUEST, seen.code());
        assertEquals("stop", seen.getMessage());
    }

    @ParameterizedTest
    @EnumSource(Opener.class)
    void aDroppedConnectionFailsTheStreamOnBothSides(Opener opener) throws Exception {
        start(echo());
        RpcStream stream = open(opener, "Test.Echo", "z");
        Collected got = new Collected();
        stream.receive(got);
        RpcStream there = accepted.poll(10, TimeUnit.SECONDS);
        assertNotNull(there);
        long start = System.nanoTime();
        // The client's side of the connection goes (a client agent stopping): no close frame for the streams.
        client.close();

        CaravanException error = got.awaitEnd();
        assertNotNull(error, "the stream failed");
        assertTrue(error.getMessage().contains("closed"), error.getMessage());
        assertNotNull(assertThrowsCause(there.whenDone()), "and on the other side");
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5), "at once, not after a timeout");
    }

    @ParameterizedTest
    @EnumSource(Opener.class)
    void aSlowReaderPausesTheSenderWithinTheWindow(Opener opener) throws Exception {
        int total = 300;
        AtomicInteger sent = new AtomicInteger();
        start(new StreamEndpoint<>("Test.Flood", Text.class, Endpoint.Callers.ANY, (request, stream) -> {
            accepted.add(stream);
            // A producer that waits for each send before the next, as the stream asks.
            CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
            for (int i = 0; i < total; i++) {
                String frame = Integer.toString(i);
                chain = chain.thenCompose(v -> stream.send(bytes(frame))).thenRun(sent::incrementAndGet);
            }
            chain.thenRun(stream::close);
            stream.receive(new Collected());
        }));
        RpcStream stream = open(opener, "Test.Flood", "");
        List<String> got = new CopyOnWriteArrayList<>();
        CompletableFuture<Void> held = new CompletableFuture<>();
        AtomicReference<CompletableFuture<Void>> gate = new AtomicReference<>(held);
        CompletableFuture<CaravanException> ended = new CompletableFuture<>();
        stream.receive(new RpcStream.Receiver() {
            @Override
            public CompletionStage<?> data(byte[] frame) {
                got.add(new String(frame, StandardCharsets.UTF_8));
                return gate.get();      // the reader takes nothing more until the gate opens
            }

            @Override
            public void end(CaravanException error) {
                ended.complete(error);
            }
        });

        Thread.sleep(1000);
        assertEquals(1, got.size(), "one frame handed over, the rest wait");
        assertTrue(sent.get() <= RpcStream.WINDOW, "the sender stopped at the window: " + sent.get());
        assertTrue(sent.get() >= RpcStream.WINDOW - 1, "and filled it: " + sent.get());

        gate.set(CompletableFuture.completedFuture(null));
        held.complete(null);
        assertNull(ended.get(10, TimeUnit.SECONDS));
        assertEquals(total, got.size());
        for (int i = 0; i < total; i++) {
            assertEquals(Integer.toString(i), got.get(i));
        }
    }
}
