package io.caravan.http.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import io.caravan.http.WebSocketBody;
import io.caravan.http.WebSocketPeer;
import jakarta.servlet.http.HttpServletRequest;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.FutureCallback;
import org.eclipse.jetty.websocket.core.CloseStatus;
import org.eclipse.jetty.websocket.core.CoreSession;
import org.eclipse.jetty.websocket.core.Frame;
import org.eclipse.jetty.websocket.core.FrameHandler;
import org.eclipse.jetty.websocket.core.OpCode;
import org.eclipse.jetty.websocket.core.WebSocketComponents;
import org.eclipse.jetty.websocket.core.server.Handshaker;
import org.eclipse.jetty.websocket.core.server.WebSocketNegotiator;

/**
 * Upgrades an API request to a WebSocket for a {@link WebSocketBody}. Jetty 12's servlet layer does not implement
 * {@code HttpServletRequest.upgrade}, so the handshake is done by Jetty's core WebSocket on the request under the
 * servlet (what Jetty's own WebSocket servlet does), and the connection then belongs to a {@link FrameHandler}.
 */
final class WebSocketUpgrade {
    /** Exec sessions sit idle while a person thinks; Nomad's clients send a heartbeat every 10 s. */
    private static final Duration IDLE_TIMEOUT = Duration.ofMinutes(5);
    private static final long MAX_MESSAGE_BYTES = 4L * 1024 * 1024;
    private static final int MAX_REASON_BYTES = 123;
    private static final WebSocketComponents COMPONENTS = components();

    private WebSocketUpgrade() {
    }

    private static WebSocketComponents components() {
        WebSocketComponents components = new WebSocketComponents();
        try {
            components.start();
        } catch (Exception e) {
            throw new IllegalStateException("WebSocket support did not start", e);
        }
        return components;
    }

    /**
     * Performs the handshake and, once the connection is a WebSocket, hands it to {@code body}.
     *
     * @return false when the request is not a WebSocket upgrade (nothing was written)
     */
    static boolean upgrade(HttpServletRequest servletRequest, WebSocketBody body) throws IOException {
        ServletContextRequest request = ServletContextRequest.getServletContextRequest(servletRequest);
        Handshaker handshaker = Handshaker.newInstance();
        if (request == null || !handshaker.isWebSocketUpgradeRequest(request)) {
            return false;
        }
        WebSocketNegotiator negotiator = WebSocketNegotiator.from((rq, rs, cb) -> new Connection(body),
                (websocket, rq, rs) -> (FrameHandler) websocket, config -> {
                    config.setIdleTimeout(IDLE_TIMEOUT);
                    config.setMaxTextMessageSize(MAX_MESSAGE_BYTES);
                    config.setAutoFragment(true);
                });
        FutureCallback done = new FutureCallback();
        if (!handshaker.upgradeRequest(negotiator, request, request.getServletContextResponse(), done, COMPONENTS,
                null)) {
            return false;
        }
        done.block();
        return true;
    }

    /** One upgraded connection: whole text messages to the body's listener, the peer's sends as text frames. */
    private static final class Connection implements FrameHandler, WebSocketPeer {
        private final WebSocketBody body;
        private final ByteArrayOutputStream partial = new ByteArrayOutputStream();
        private final AtomicBoolean ended = new AtomicBoolean();
        private volatile CoreSession session;
        private volatile WebSocketBody.Listener listener;

        Connection(WebSocketBody body) {
            this.body = body;
        }

        @Override
        public void onOpen(CoreSession coreSession, Callback callback) {
            this.session = coreSession;
            callback.succeeded();
            listener = body.open(this);
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
            String whole = null;
            if (op == OpCode.TEXT || op == OpCode.BINARY || op == OpCode.CONTINUATION) {
                ByteBuffer payload = frame.getPayload();
                if (payload != null) {
                    byte[] chunk = new byte[payload.remaining()];
                    payload.get(chunk);
                    partial.write(chunk, 0, chunk.length);
                }
                if (frame.isFin()) {
                    whole = partial.toString(StandardCharsets.UTF_8);
                    partial.reset();
                }
            }
            callback.succeeded();
            if (whole != null) {
                listener.text(whole);
            }
            session.demand();
        }

        @Override
        public void onError(Throwable cause, Callback callback) {
            end();
            callback.succeeded();
        }

        @Override
        public void onClosed(CloseStatus closeStatus, Callback callback) {
            end();
            callback.succeeded();
        }

        private void end() {
            if (ended.compareAndSet(false, true) && listener != null) {
                listener.closed();
            }
        }

        @Override
        public void send(String text) {
            CoreSession s = session;
            if (s != null && !ended.get()) {
                s.sendFrame(new Frame(OpCode.TEXT, text), Callback.NOOP, false);
            }
        }

        @Override
        public void close() {
            close(CloseStatus.NORMAL, null);
        }

        @Override
        public void close(int status, String reason) {
            CoreSession s = session;
            if (s != null) {
                s.close(status, fit(reason), Callback.NOOP);
            }
        }

        /** A close frame's reason is at most 123 bytes of UTF-8: a longer one is cut, at a character. */
        private static String fit(String reason) {
            if (reason == null || reason.getBytes(StandardCharsets.UTF_8).length <= MAX_REASON_BYTES) {
                return reason;
            }
            StringBuilder cut = new StringBuilder();
            int bytes = 0;
            for (int i = 0; i < reason.length(); i = reason.offsetByCodePoints(i, 1)) {
                String c = new String(Character.toChars(reason.codePointAt(i)));
                bytes += c.getBytes(StandardCharsets.UTF_8).length;
                if (bytes > MAX_REASON_BYTES) {
                    break;
                }
                cut.append(c);
            }
            return cut.toString();
        }
    }
}
