package io.caravan.server.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.exec.ExecFrames;
import io.caravan.http.ApiRequest;
import io.caravan.http.ApiResponse;
import io.caravan.http.BodyWriter;
import io.caravan.http.HttpForward;
import io.caravan.http.HttpForward.Answer;
import io.caravan.http.StreamingBody;
import io.caravan.http.WebSocketBody;
import io.caravan.http.WebSocketPeer;
import io.caravan.rpc.Rpc;
import io.caravan.rpc.RpcStream;

/**
 * A server's end of client calls that stream ({@code fs/stream}, {@code follow=true} logs, {@code alloc exec}): an
 * RPC stream ({@link HttpForward#STREAM}, {@link HttpForward#WEBSOCKET}) opened on the node that holds the
 * allocation, through the connection it opened here or, when that is at another server, through that server
 * (as {@link NodeCalls} relays calls). The node answers as its own API would; this side relays its answer's head,
 * then the body's bytes to the caller, or the WebSocket's messages both ways. The stream's window paces the node
 * to the caller; the caller going away ends the stream, and with it the node's side.
 */
final class ClientStreams {
    /** How long the node may take to answer a stream's head (it starts the command, opens the file). */
    static final Duration HEAD_WAIT = Duration.ofSeconds(30);
    /** How soon a write the caller did not take yet is tried again; how often a quiet caller is checked. */
    private static final long RETRY_MILLIS = 20;
    private static final long CHECK_MILLIS = 1000;

    private final Rpc rpc;
    private final ScheduledExecutorService timer;

    ClientStreams(Rpc rpc, ScheduledExecutorService timer) {
        this.rpc = rpc;
        this.timer = timer;
    }

    /** A stream opened and its head: what the node answered. */
    record Opened(RpcStream stream, Answer head, Relay relay) {}

    /** {@code request} as a {@link HttpForward#STREAM} on the node: its body relayed to the caller. */
    CompletableFuture<ApiResponse> body(String nodeId, ApiRequest request, List<String> servers) {
        return open(nodeId, HttpForward.STREAM, request, servers).thenApply(opened -> {
            if (!opened.head().ok()) {
                opened.stream().close();
                return opened.head().toResponse();
            }
            return new ApiResponse(opened.head().status(), new Body(opened), null);
        });
    }

    /** {@code request}, a WebSocket upgrade, as a {@link HttpForward#WEBSOCKET} on the node. */
    CompletableFuture<ApiResponse> socket(String nodeId, ApiRequest request, List<String> servers) {
        return open(nodeId, HttpForward.WEBSOCKET, request, servers).thenApply(opened -> {
            if (!opened.head().ok()) {
                opened.stream().close();
                return opened.head().toResponse();
            }
            return ApiResponse.ok(new Socket(opened));
        });
    }

    /**
     * {@code request}, a WebSocket upgrade whose token comes in its first frame ({@code ws_handshake}): upgraded at
     * once; that frame's token goes to {@code authorize} (which checks it and names the node, or throws), and only then
     * is the socket opened on the node, the token in its header so that the node checks it too, before its command
     * starts. The first frame is relayed as it came. A refusal, here or the node's, closes the caller's socket with
     * 1008 (1011 for an internal error) and the reason, as Nomad does.
     */
    ApiResponse socketAfterHandshake(ApiRequest request, List<String> servers, Function<String, String> authorize) {
        return ApiResponse.ok(new HandshakeSocket(HttpForward.Call.of(request), request, servers, authorize));
    }

    private CompletableFuture<Opened> open(String nodeId, String method, ApiRequest request, List<String> servers) {
        return open(nodeId, method, HttpForward.Call.of(request), request, servers);
    }

    private CompletableFuture<Opened> open(String nodeId, String method, HttpForward.Call call, ApiRequest request,
                                           List<String> servers) {
        return attach(rpc.openNodeStream(nodeId, method, call)).exceptionallyCompose(error -> {
            Throwable t = NodeCalls.unwrap(error);
            if (!NodeCalls.connectedElsewhere(t, request)) {
                return CompletableFuture.failedFuture(t);
            }
            // The node's connection is at another server: open there; the first that has the connection answers.
            HttpForward.Call relayed = call.forwarded();
            return NodeCalls.relay(request, servers, t, server -> attach(rpc.openStreamAt(server, method, relayed)),
                    opened -> NodeCalls.notConnectedThere(opened.head()), opened -> opened.stream().close());
        });
    }

    /** Listens to a stream being opened, until its head comes (bounded: a silent node fails the stream). */
    private CompletableFuture<Opened> attach(CompletionStage<RpcStream> opening) {
        return opening.toCompletableFuture().thenCompose(stream -> {
            Relay relay = new Relay();
            stream.receive(relay);
            return relay.head.orTimeout(HEAD_WAIT.toMillis(), TimeUnit.MILLISECONDS).handle((head, error) -> {
                if (error != null) {
                    CaravanException why = NodeCalls.unwrap(error) instanceof CaravanException c ? c
                            : new CaravanException(ErrorCode.INTERNAL, "the node did not answer in "
                                    + HEAD_WAIT.toSeconds() + " s");
                    stream.fail(why);
                    throw new CompletionException(why);
                }
                return new Opened(stream, head, relay);
            });
        });
    }

    /** Where the node's frames go after the head. */
    interface Sink {
        /** @return completes when the frame was taken (the node's window comes back then) */
        CompletionStage<?> take(byte[] frame);

        void end(CaravanException error);
    }

    /** The stream's receiver: the first frame is the head; the rest wait for the sink the caller's side sets. */
    static final class Relay implements RpcStream.Receiver {
        final CompletableFuture<Answer> head = new CompletableFuture<>();
        final CompletableFuture<Sink> sink = new CompletableFuture<>();

        @Override
        public CompletionStage<?> data(byte[] frame) {
            if (!head.isDone()) {
                try {
                    head.complete(Answer.decode(frame));
                } catch (IllegalArgumentException e) {
                    head.completeExceptionally(new CaravanException(ErrorCode.INTERNAL, e.getMessage()));
                }
                return CompletableFuture.completedFuture(null);
            }
            return sink.thenCompose(s -> s.take(frame));
        }

        @Override
        public void end(CaravanException error) {
            head.completeExceptionally(error != null ? error
                    : new CaravanException(ErrorCode.INTERNAL, "the node ended the stream before answering"));
            sink.thenAccept(s -> s.end(error));
        }
    }

    /** The node's response body, written to the caller as the caller takes it. */
    private final class Body implements StreamingBody, Sink {
        private final Opened opened;
        private volatile BodyWriter out;
        private volatile ScheduledFuture<?> watch;

        Body(Opened opened) {
            this.opened = opened;
        }

        @Override
        public String contentType() {
            return opened.head().header("Content-Type").orElse("application/octet-stream");
        }

        @Override
        public void start(BodyWriter writer) {
            out = writer;
            // A caller that left is noticed even while the node has nothing to send (a quiet, unframed log).
            watch = timer.scheduleWithFixedDelay(() -> {
                if (writer.closed()) {
                    opened.stream().fail(gone());
                    watch.cancel(false);
                }
            }, CHECK_MILLIS, CHECK_MILLIS, TimeUnit.MILLISECONDS);
            opened.relay().sink.complete(this);
        }

        @Override
        public CompletionStage<?> take(byte[] frame) {
            CompletableFuture<Void> taken = new CompletableFuture<>();
            write(frame, taken);
            return taken;
        }

        private void write(byte[] frame, CompletableFuture<Void> taken) {
            try {
                if (out.write(frame)) {
                    taken.complete(null);
                } else {
                    timer.schedule(() -> write(frame, taken), RETRY_MILLIS, TimeUnit.MILLISECONDS);
                }
            } catch (IOException | java.util.concurrent.RejectedExecutionException e) {
                taken.completeExceptionally(gone());
            }
        }

        @Override
        public void end(CaravanException error) {
            ScheduledFuture<?> w = watch;
            if (w != null) {
                w.cancel(false);
            }
            out.close();
        }
    }

    private static CaravanException gone() {
        return new CaravanException(ErrorCode.INTERNAL, "the caller went away");
    }

    /** A ws_handshake socket: the caller's, open before the node's, until its first frame passed the checks. */
    private final class HandshakeSocket implements WebSocketBody, WebSocketBody.Listener {
        private final HttpForward.Call call;
        private final ApiRequest request;
        private final List<String> servers;
        private final Function<String, String> authorize;
        private final AtomicBoolean ended = new AtomicBoolean();
        private volatile WebSocketPeer peer;
        private volatile Socket bridge;
        private volatile boolean first = true;

        HandshakeSocket(HttpForward.Call call, ApiRequest request, List<String> servers,
                        Function<String, String> authorize) {
            this.call = call;
            this.request = request;
            this.servers = servers;
            this.authorize = authorize;
        }

        @Override
        public Listener open(WebSocketPeer p) {
            peer = p;
            timer.schedule(() -> {
                if (bridge == null) {
                    refuse(1008, "no auth frame in " + HEAD_WAIT.toSeconds() + " s");
                }
            }, HEAD_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            return this;
        }

        /** The first frame is checked, then opens the node's socket (on this connection's thread: the rest wait). */
        @Override
        public void text(String message) {
            Socket open = bridge;
            if (open != null) {
                open.text(message);
                return;
            }
            if (!first || ended.get()) {
                return;
            }
            first = false;
            ExecFrames.Input auth;
            try {
                auth = ExecFrames.readInput(message);
            } catch (IOException e) {
                refuse(1008, "unexpected handshake value: " + e.getMessage());
                return;
            }
            if (!auth.isAuth() || auth.version() == null || auth.version() != 1) {
                refuse(1008, "unexpected handshake value: " + auth.version());
                return;
            }
            Opened opened;
            try {
                String nodeId = authorize.apply(auth.authToken());
                opened = ClientStreams.this.open(nodeId, HttpForward.WEBSOCKET, call.withToken(auth.authToken()),
                        request, servers)
                        .get(HEAD_WAIT.toSeconds() + 5, TimeUnit.SECONDS);
            } catch (CaravanException e) {
                refuse(e.code() == ErrorCode.INTERNAL ? 1011 : 1008, e.getMessage());
                return;
            } catch (Exception e) {
                Throwable t = NodeCalls.unwrap(e instanceof java.util.concurrent.ExecutionException && e.getCause()
                        != null ? e.getCause() : e);
                refuse(t instanceof CaravanException c && c.code() != ErrorCode.INTERNAL ? 1008 : 1011,
                        t.getMessage() == null ? t.toString() : t.getMessage());
                return;
            }
            if (!opened.head().ok()) {
                opened.stream().close();
                byte[] body = opened.head().body();
                String why = body == null ? "" : new String(body, StandardCharsets.UTF_8).strip();
                refuse(opened.head().status() >= 500 ? 1011 : 1008, why.isEmpty() ? "status "
                        + opened.head().status() : why);
                return;
            }
            Socket socket = new Socket(opened);
            socket.open(peer);
            bridge = socket;
            if (ended.get()) {
                socket.closed();     // the caller left while the node's socket opened
                return;
            }
            socket.text(message);    // the node reads the same first frame
        }

        @Override
        public void closed() {
            ended.set(true);
            Socket open = bridge;
            if (open != null) {
                open.closed();
            }
        }

        private void refuse(int status, String reason) {
            if (ended.compareAndSet(false, true)) {
                peer.close(status, reason);
            }
        }
    }

    /** The caller's WebSocket, bridged to the node's: text messages both ways, and the close. */
    private final class Socket implements WebSocketBody, WebSocketBody.Listener, Sink {
        private final Opened opened;
        private final AtomicBoolean upgraded = new AtomicBoolean();
        private volatile WebSocketPeer peer;

        Socket(Opened opened) {
            this.opened = opened;
            // An upgrade that never completes must not keep the node's session.
            timer.schedule(() -> {
                if (!upgraded.get()) {
                    opened.stream().fail(new CaravanException(ErrorCode.BAD_REQUEST, "the WebSocket never opened"));
                }
            }, HEAD_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        }

        @Override
        public Listener open(WebSocketPeer p) {
            peer = p;
            upgraded.set(true);
            opened.relay().sink.complete(this);
            return this;
        }

        @Override
        public void text(String message) {
            // A person typing: the stream's window holds what the node has not taken yet.
            opened.stream().send(message.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public void closed() {
            opened.stream().close();
        }

        @Override
        public CompletionStage<?> take(byte[] frame) {
            peer.send(new String(frame, StandardCharsets.UTF_8));
            return CompletableFuture.completedFuture(null);
        }

        /** The node's refusal (its socket closed with 1008 or 1011 and a reason) reaches the caller as it was. */
        @Override
        public void end(CaravanException error) {
            if (error == null) {
                peer.close();
            } else {
                peer.close(error.code() == ErrorCode.INTERNAL ? 1011 : 1008, error.getMessage());
            }
        }
    }
}
