package io.caravan.rpc.internal;

import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.function.Consumer;

import io.caravan.tls.ReloadableTls;
import io.caravan.tls.jetty.TlsConnectors;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.websocket.core.FrameHandler;
import org.eclipse.jetty.websocket.core.WebSocketComponents;
import org.eclipse.jetty.websocket.core.server.WebSocketNegotiator;
import org.eclipse.jetty.websocket.core.server.WebSocketUpgradeHandler;

/**
 * A server's RPC port: a Jetty server of its own (not the HTTP API's) that upgrades {@code /v1/rpc} to a WebSocket,
 * one {@link JettyChannel} per connection. Its thread pool is small: handlers do not block.
 *
 * <p>With the agent's TLS it is Nomad's RPC port under {@code tls.rpc}: TLS with a client certificate signed by the
 * CA required at the handshake (plain text refused, or also served in {@code rpc_upgrade_mode}). Who is a server
 * ({@link io.caravan.rpc.Endpoint.Callers#SERVERS}) is then the certificate's role, {@code server.<region>.nomad};
 * over plain text it is the gossip-key proof ({@link ServerProof}).
 */
final class RpcListener implements AutoCloseable {
    static final long MAX_MESSAGE_BYTES = 256L * 1024 * 1024;
    private static final int MAX_THREADS = 32;

    private final Server server;
    private final ServerConnector connector;

    /** @param tls the agent's TLS, or null for plain text */
    RpcListener(String host, int port, Dispatcher dispatcher, Duration idleTimeout, ServerProof proof,
                ReloadableTls tls, Consumer<JettyChannel> opened) {
        QueuedThreadPool pool = new QueuedThreadPool(MAX_THREADS, 1);   // min 1: the selector; workers come when needed
        pool.setName("caravan-rpc");
        pool.setDaemon(true);
        server = new Server(pool);
        // No acceptor thread: the selector accepts.
        connector = tls == null ? new ServerConnector(server, 0, -1, new HttpConnectionFactory())
                : new ServerConnector(server, 0, -1, TlsConnectors.factories(tls, new HttpConnectionFactory(), true, tls.settings().rpcUpgradeMode()));
        connector.setHost(host);
        connector.setPort(port);
        connector.setReuseAddress(true);
        server.addConnector(connector);
        WebSocketUpgradeHandler upgrade = new WebSocketUpgradeHandler(new WebSocketComponents());
        upgrade.addMapping(JdkChannel.PATH, WebSocketNegotiator.from((request, response, callback) -> {
            String nodeId = request.getHeaders().get(JdkChannel.NODE_HEADER);
            boolean fromServer;
            if (TlsConnectors.secure(request)) {
                X509Certificate peer = TlsConnectors.peer(request);
                fromServer = peer != null && tls.isServer(peer);
            } else {
                fromServer = proof.accepts(request.getHeaders().get(JdkChannel.SERVER_HEADER));
            }
            JettyChannel channel = new JettyChannel(dispatcher,
                    Request.getRemoteAddr(request) + ":" + Request.getRemotePort(request), nodeId, fromServer);
            opened.accept(channel);
            return channel;
        }, (websocket, request, response) -> (FrameHandler) websocket));
        upgrade.getConfiguration().setIdleTimeout(idleTimeout);
        upgrade.getConfiguration().setMaxBinaryMessageSize(MAX_MESSAGE_BYTES);
        upgrade.getConfiguration().setMaxFrameSize(MAX_MESSAGE_BYTES);
        upgrade.getConfiguration().setAutoFragment(true);
        server.setHandler(upgrade);
    }

    void start() throws Exception {
        server.start();
    }

    int port() {
        return connector.getLocalPort();
    }

    @Override
    public void close() throws Exception {
        server.stop();
    }
}
