package io.caravan.rpc.internal;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.websocket.core.CloseStatus;
import org.eclipse.jetty.websocket.core.CoreSession;
import org.eclipse.jetty.websocket.core.Frame;
import org.eclipse.jetty.websocket.core.FrameHandler;
import org.eclipse.jetty.websocket.core.OpCode;

/** The server's end of a connection an agent opened: Jetty's WebSocket core, one binary message per envelope. */
final class JettyChannel extends Channel implements FrameHandler {
    private final String nodeId;
    private final boolean fromServer;
    private final ByteArrayOutputStream partial = new ByteArrayOutputStream();
    private volatile CoreSession session;

    JettyChannel(Dispatcher dispatcher, String peer, String nodeId, boolean fromServer) {
        super(dispatcher, peer);
        this.nodeId = nodeId;
        this.fromServer = fromServer;
    }

    @Override
    boolean fromServer() {
        return fromServer;
    }

    /** The client node that opened this connection, or empty for a server. */
    String nodeId() {
        return nodeId;
    }

    @Override
    public void onOpen(CoreSession coreSession, Callback callback) {
        this.session = coreSession;
        callback.succeeded();
        coreSession.demand();
    }

    @Override
    public void onFrame(Frame frame, Callback callback) {
        byte op = frame.getOpCode();
        if (op == OpCode.CLOSE) {
            callback.succeeded();
            return;
        }
        if (op == OpCode.PING) {
            // WebSocket core leaves control frames to the handler: answer the dialler's keep-alive ping.
            ByteBuffer payload = frame.getPayload();
            ByteBuffer copy = ByteBuffer.allocate(payload == null ? 0 : payload.remaining());
            if (payload != null) {
                copy.put(payload.slice()).flip();
            }
            session.sendFrame(new Frame(OpCode.PONG).setPayload(copy), Callback.NOOP, false);
            callback.succeeded();
            session.demand();
            return;
        }
        byte[] whole = null;
        if (op == OpCode.BINARY || op == OpCode.CONTINUATION) {
            ByteBuffer payload = frame.getPayload();
            if (payload != null) {
                byte[] chunk = new byte[payload.remaining()];
                payload.get(chunk);
                partial.write(chunk, 0, chunk.length);
            }
            if (frame.isFin()) {
                whole = partial.toByteArray();
                partial.reset();
            }
        }
        callback.succeeded();
        // Handled before reading on, so messages are handled in order (a stream's frames must be); handlers do
        // not block, and calls still overlap as their answers come later.
        if (whole != null) {
            received(whole);
        }
        session.demand();
    }

    @Override
    public void onError(Throwable cause, Callback callback) {
        closed(cause);
        callback.succeeded();
    }

    @Override
    public void onClosed(CloseStatus closeStatus, Callback callback) {
        closed(null);
        callback.succeeded();
    }

    @Override
    protected CompletableFuture<?> write(byte[] message) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        CoreSession s = session;
        if (s == null) {
            return CompletableFuture.failedFuture(new ChannelClosedException(peer()));
        }
        s.sendFrame(new Frame(OpCode.BINARY, ByteBuffer.wrap(message)), Callback.from(() -> done.complete(null),
                done::completeExceptionally), false);
        return done;
    }

    @Override
    void close() {
        CoreSession s = session;
        if (s != null) {
            s.close(CloseStatus.NORMAL, "closing", Callback.NOOP);
        }
    }
}
