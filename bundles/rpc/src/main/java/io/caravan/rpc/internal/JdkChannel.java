package io.caravan.rpc.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

import javax.net.ssl.SSLException;

/**
 * The dialling end of a connection: the JDK's WebSocket client. It allows one send at a time, so sends are chained;
 * it hands messages over in parts, which are joined here.
 */
final class JdkChannel extends Channel implements WebSocket.Listener {
    static final String PATH = "/v1/rpc";
    static final String NODE_HEADER = "X-Caravan-Node-ID";
    static final String SERVER_HEADER = "X-Caravan-Server-Proof";

    private final ByteArrayOutputStream partial = new ByteArrayOutputStream();
    private final Object sendLock = new Object();
    private CompletableFuture<?> lastSend = CompletableFuture.completedFuture(null);   // guarded by sendLock
    private volatile WebSocket socket;
    /** {@link System#nanoTime()} when the other side was last heard from (a message or a pong). */
    private volatile long lastHeard = System.nanoTime();

    private JdkChannel(Dispatcher dispatcher, String address) {
        super(dispatcher, address);
    }

    /**
     * Dials {@code host:port}; a client node names itself so servers can call it back on this connection, and a
     * server proves it is one.
     *
     * @param secure over TLS ({@code wss}), with the client's context and parameters
     */
    static CompletableFuture<JdkChannel> open(HttpClient http, Dispatcher dispatcher, String address, String nodeId,
                                              String serverProof, Duration timeout, boolean secure) {
        JdkChannel channel = new JdkChannel(dispatcher, address);
        WebSocket.Builder builder = http.newWebSocketBuilder().connectTimeout(timeout);
        if (nodeId != null && !nodeId.isEmpty()) {
            builder.header(NODE_HEADER, nodeId);
        }
        if (serverProof != null) {
            builder.header(SERVER_HEADER, serverProof);
        }
        return builder.buildAsync(URI.create((secure ? "wss://" : "ws://") + address + PATH), channel)
                .handle((ws, error) -> {
                    if (error != null) {
                        throw new CompletionException(explain(address, secure, error));
                    }
                    channel.socket = ws;
                    return channel;
                });
    }

    /**
     * A failed dial as its cause says it: a TLS handshake refused (by either side), or a TLS port dialled in plain
     * text, which answers 400; anything else (refused, timed out) as it came.
     */
    private static Throwable explain(String address, boolean secure, Throwable error) {
        Throwable root = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        for (Throwable t = root; t != null; t = t.getCause()) {
            if (t instanceof SSLException) {
                return new DialException("TLS handshake with " + address + " failed: " + t.getMessage(), root);
            }
        }
        if (!secure && root instanceof WebSocketHandshakeException h && h.getResponse().statusCode() == 400) {
            return new DialException("RPC handshake with " + address + " failed: it answered 400 to plain text, as a "
                    + "server with tls.rpc = true does; this agent has tls.rpc off", root);
        }
        return root;
    }

    /** The connection could not be set up although the peer answered: TLS refused, or the wrong protocol. */
    static final class DialException extends IOException {
        private static final long serialVersionUID = 1L;

        DialException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** Calls coming back on a connection this agent dialled come from the server it chose to dial. */
    @Override
    boolean fromServer() {
        return true;
    }

    @Override
    public void onOpen(WebSocket webSocket) {
        this.socket = webSocket;
        webSocket.request(1);
    }

    @Override
    public CompletionStage<?> onBinary(WebSocket webSocket, ByteBuffer data, boolean last) {
        lastHeard = System.nanoTime();
        byte[] chunk = new byte[data.remaining()];
        data.get(chunk);
        byte[] whole = null;
        synchronized (partial) {
            partial.write(chunk, 0, chunk.length);
            if (last) {
                whole = partial.toByteArray();
                partial.reset();
            }
        }
        if (whole != null) {
            received(whole);          // before asking for the next: a stream's frames are handled in order
        }
        webSocket.request(1);
        return null;
    }

    @Override
    public CompletionStage<?> onPong(WebSocket webSocket, ByteBuffer message) {
        lastHeard = System.nanoTime();
        webSocket.request(1);
        return null;
    }

    /**
     * Keeps the connection honest: pings the other side, and drops the connection when it has not been heard from
     * for {@code deadline}. A paused or partitioned peer keeps its TCP connection open and answers nothing; without
     * this, calls on the connection wait for their own timeouts (minutes for a blocking query) instead of failing
     * over to another server.
     */
    void keepAlive(Duration deadline) {
        WebSocket ws = socket;
        if (ws == null || !isOpen()) {
            return;
        }
        if (System.nanoTime() - lastHeard > deadline.toNanos()) {
            ws.abort();
            closed(new java.io.IOException("no answer from " + peer() + " for " + deadline.toMillis() + " ms"));
            return;
        }
        synchronized (sendLock) {
            lastSend = lastSend.handle((ok, error) -> null).thenCompose(ignored -> ws.sendPing(ByteBuffer.allocate(0)));
        }
    }

    @Override
    public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
        closed(null);
        return null;
    }

    @Override
    public void onError(WebSocket webSocket, Throwable error) {
        closed(error);
    }

    @Override
    protected CompletableFuture<?> write(byte[] message) {
        synchronized (sendLock) {
            CompletableFuture<?> next = lastSend.handle((ok, error) -> null)
                    .thenCompose(ignored -> socket.sendBinary(ByteBuffer.wrap(message), true));
            lastSend = next;
            return next;
        }
    }

    @Override
    void close() {
        WebSocket ws = socket;
        if (ws != null) {
            ws.sendClose(WebSocket.NORMAL_CLOSURE, "closing").whenComplete((ok, error) -> ws.abort());
        }
        closed(null);
    }
}
