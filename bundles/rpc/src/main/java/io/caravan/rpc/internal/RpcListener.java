package io.caravan.rpc.internal;

import java.time.Duration;
import java.util.function.Consumer;

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
 */
final class RpcListener implements AutoCloseable {
    static final long MAX_MESSAGE_BYTES = 256L * 1024 * 1024;
    private static final int MAX_THREADS = 32;

    private final Server server;
    private final ServerConnector connector;

    RpcListener(String host, int port, Dispatcher dispatcher, Duration idleTimeout, ServerProof proof,
                Consumer<JettyChannel> opened) {
        QueuedThreadPool pool = new QueuedThreadPool(MAX_THREADS, 2);
        pool.setName("caravan-rpc");
        pool.setDaemon(true);
        server = new Server(pool);
        connector = new ServerConnector(server);
        connector.setHost(host);
        connector.setPort(port);
        connector.setReuseAddress(true);
        server.addConnector(connector);
        WebSocketUpgradeHandler upgrade = new WebSocketUpgradeHandler(new WebSocketComponents());
        upgrade.addMapping(JdkChannel.PATH, WebSocketNegotiator.from((request, response, callback) -> {
            String nodeId = request.getHeaders().get(JdkChannel.NODE_HEADER);
            boolean fromServer = proof.accepts(request.getHeaders().get(JdkChannel.SERVER_HEADER));
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
