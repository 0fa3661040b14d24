package io.caravan.rpc.internal;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.timer.Deadlines;
import io.caravan.rpc.Rpc;
import io.caravan.rpc.RpcStream;
import io.caravan.tls.ReloadableTls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One agent's side of the RPC transport: the listener when it is a server, the connections it dialled (one per
 * server, reused by every call), and the connections client nodes opened to it. Plain Java, so tests can run several
 * in one JVM; {@link RpcComponent} runs one per agent.
 */
final class RpcEngine implements Rpc, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RpcEngine.class);
    static final int DEFAULT_PORT = 4647;
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(3);
    /** How often dialled connections are pinged, and how long a peer may stay silent before its connection is dropped. */
    static final Duration PING_INTERVAL = Duration.ofSeconds(2);
    static final Duration PEER_SILENCE = Duration.ofSeconds(6);

    private final String nodeId;
    private final ServerProof proof;
    private final ReloadableTls tls;
    private final Duration callTimeout;
    private final ScheduledExecutorService timer;
    private final ExecutorService io;
    private final HttpClient.Builder clientBuilder;
    /** Built at the first dial: a JDK client holds a selector thread, and an agent alone (-dev) never dials. */
    private HttpClient http;
    private final Dispatcher dispatcher;
    private final Map<String, CompletableFuture<JdkChannel>> dialled = new ConcurrentHashMap<>();
    private final Map<String, JettyChannel> nodes = new ConcurrentHashMap<>();
    private final Object serversLock = new Object();
    private List<String> servers = List.of();        // guarded by serversLock; the order calls try them in
    private RpcListener listener;

    /**
     * @param nodeId this agent's node ID, sent when dialling so servers can call back (empty: not a client node)
     * @param leaderWait how long a call for the leader waits for one to be elected
     * @param callTimeout the longest any call may take (blocking queries included)
     * @param proof what this agent, a server, shows when it dials, and asks of servers that dial it over plain text
     * @param tls the agent's TLS when {@code tls.rpc} is on (mutual TLS both ways, see {@link RpcListener}), or null
     */
    RpcEngine(String nodeId, Duration leaderWait, Duration callTimeout, ServerProof proof, ReloadableTls tls) {
        this(nodeId, leaderWait, callTimeout, proof, tls,
                Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "caravan-rpc-timer")));
    }

    /** @param timer call deadlines, leader polls and keep-alive pings (the agent's shared timer); shut down on close */
    RpcEngine(String nodeId, Duration leaderWait, Duration callTimeout, ServerProof proof, ReloadableTls tls,
              ScheduledExecutorService timer) {
        this.nodeId = nodeId;
        this.proof = proof;
        this.tls = tls;
        this.callTimeout = callTimeout;
        this.timer = timer;
        this.io = Executors.newCachedThreadPool(r -> daemon(r, "caravan-rpc-client"));
        HttpClient.Builder client = HttpClient.newBuilder().executor(io).connectTimeout(CONNECT_TIMEOUT)
                .version(HttpClient.Version.HTTP_1_1);
        if (tls != null) {
            // The reloadable context: a dial after a reload presents the new certificate.
            client.sslContext(tls.context()).sslParameters(tls.parameters());
        }
        this.clientBuilder = client;
        this.dispatcher = new Dispatcher(timer, leaderWait);
        dispatcher.setForwarder((address, method, hops, body) -> send(address, method, hops, body));
        timer.scheduleWithFixedDelay(this::keepAlive, PING_INTERVAL.toMillis(), PING_INTERVAL.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    private synchronized HttpClient http() {
        if (http == null) {
            http = clientBuilder.build();
        }
        return http;
    }

    /** Pings every connection this agent dialled; one silent past {@link #PEER_SILENCE} is dropped. */
    private void keepAlive() {
        for (CompletableFuture<JdkChannel> f : dialled.values()) {
            if (f.isDone() && usable(f)) {
                f.join().keepAlive(PEER_SILENCE);
            }
        }
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    Dispatcher dispatcher() {
        return dispatcher;
    }

    /** Starts serving on {@code host:port} (0: any free port). */
    void listen(String host, int port, Duration idleTimeout) throws Exception {
        RpcListener l = new RpcListener(host, port, dispatcher, idleTimeout, proof, tls, this::opened);
        l.start();
        listener = l;
        LOG.atInfo().addKeyValue("address", host + ":" + l.port()).addKeyValue("tls", tls != null)
                .addKeyValue("rpc_upgrade_mode", tls != null && tls.settings().rpcUpgradeMode())
                .log("RPC listening");
    }

    int port() {
        return listener == null ? -1 : listener.port();
    }

    private void opened(JettyChannel channel) {
        String node = channel.nodeId();
        if (node == null || node.isEmpty()) {
            return;
        }
        JettyChannel before = nodes.put(node, channel);
        if (before != null && before != channel) {
            LOG.debug("Node {} reconnected from {}", node, channel.peer());
        }
        channel.whenClosed().thenRun(() -> nodes.remove(node, channel));
    }

    @Override
    public <R> CompletionStage<R> call(String method, Object request, Class<R> response) {
        return call(method, request, response, callTimeout);
    }

    @Override
    public <R> CompletionStage<R> call(String method, Object request, Class<R> response, Duration attemptTimeout) {
        byte[] body = RpcCodec.encode(request);
        List<String> order = servers();
        if (order.isEmpty()) {
            return CompletableFuture.failedFuture(new CaravanException(ErrorCode.NO_LEADER, "no servers known"));
        }
        CompletableFuture<byte[]> result = new CompletableFuture<>();
        attempt(order, 0, method, body, attemptTimeout, null, result);
        return result.thenApply(bytes -> RpcCodec.decode(bytes, response));
    }

    /** Tries the servers in order; one that cannot be reached or has no leader goes to the end of the list. */
    private void attempt(List<String> order, int i, String method, byte[] body, Duration timeout, Throwable last,
                         CompletableFuture<byte[]> result) {
        if (i == order.size()) {
            result.completeExceptionally(new CaravanException(ErrorCode.NO_LEADER, null,
                    "No servers reachable for " + method + ": " + (last == null ? "?" : reason(last)), last));
            return;
        }
        String server = order.get(i);
        send(server, method, 0, body, timeout).whenComplete((ok, error) -> {
            if (error == null) {
                result.complete(ok);
            } else if (retryElsewhere(error)) {
                LOG.debug("RPC {} to {} failed, trying the next server: {}", method, server, reason(error));
                demote(server);
                attempt(order, i + 1, method, body, timeout, error, result);
            } else {
                result.completeExceptionally(unwrap(error));
            }
        });
    }

    private static boolean retryElsewhere(Throwable error) {
        Throwable t = unwrap(error);
        return !(t instanceof CaravanException c) || c.code() == ErrorCode.NO_LEADER;
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }

    private static String reason(Throwable error) {
        Throwable t = unwrap(error);
        return t.getMessage() != null ? t.getMessage() : t.toString();
    }

    private void demote(String server) {
        synchronized (serversLock) {
            if (servers.size() > 1 && servers.contains(server)) {
                List<String> reordered = new ArrayList<>(servers);
                reordered.remove(server);
                reordered.add(server);
                servers = List.copyOf(reordered);
            }
        }
    }

    @Override
    public <R> CompletionStage<R> dispatch(String method, Object request, Class<R> response) {
        return dispatcher.serve(method, 0, RpcCodec.encode(request), null).handle((bytes, error) -> {
            if (error != null) {
                throw new CompletionException(Dispatcher.asCaravan(error));
            }
            return RpcCodec.decode(bytes, response);
        });
    }

    @Override
    public <R> CompletionStage<R> callAt(String address, String method, Object request, Class<R> response) {
        return send(withPort(address), method, 0, RpcCodec.encode(request))
                .handle((bytes, error) -> {
                    if (error != null) {
                        throw new CompletionException(Dispatcher.asCaravan(error));
                    }
                    return RpcCodec.decode(bytes, response);
                });
    }

    @Override
    public <R> CompletionStage<R> callNode(String node, String method, Object request, Class<R> response) {
        JettyChannel channel = nodes.get(node);
        if (channel == null || !channel.isOpen()) {
            return CompletableFuture.failedFuture(new CaravanException(ErrorCode.NOT_FOUND,
                    "Unknown node " + node + ": no RPC connection to this server"));
        }
        return Deadlines.orTimeout(channel.call(method, 0, RpcCodec.encode(request)), callTimeout.toMillis(),
                        TimeUnit.MILLISECONDS, timer)
                .thenApply(bytes -> RpcCodec.decode(bytes, response));
    }

    @Override
    public CompletionStage<RpcStream> openNodeStream(String node, String method, Object request) {
        JettyChannel channel = nodes.get(node);
        if (channel == null || !channel.isOpen()) {
            return CompletableFuture.failedFuture(new CaravanException(ErrorCode.NOT_FOUND,
                    "Unknown node " + node + ": no RPC connection to this server"));
        }
        return CompletableFuture.completedFuture(channel.openStream(method, RpcCodec.encode(request)));
    }

    @Override
    public CompletionStage<RpcStream> openStreamAt(String address, String method, Object request) {
        byte[] body = RpcCodec.encode(request);
        return channel(withPort(address)).<RpcStream>thenApply(c -> c.openStream(method, body))
                .exceptionally(error -> {
                    throw new CompletionException(Dispatcher.asCaravan(error));
                });
    }

    /** Sends an encoded call over this agent's connection to {@code address}, dialling it first if needed. */
    private CompletableFuture<byte[]> send(String address, String method, int hops, byte[] body) {
        return send(address, method, hops, body, callTimeout);
    }

    private CompletableFuture<byte[]> send(String address, String method, int hops, byte[] body, Duration timeout) {
        return Deadlines.orTimeout(channel(address).thenCompose(c -> c.call(method, hops, body)), timeout.toMillis(),
                TimeUnit.MILLISECONDS, timer);
    }

    private CompletableFuture<JdkChannel> channel(String address) {
        CompletableFuture<JdkChannel> f = dialled.compute(address, (a, existing) -> {
            if (existing != null && (!existing.isDone() || usable(existing))) {
                return existing;
            }
            return JdkChannel.open(http(), dispatcher, a, nodeId, proof.value(), CONNECT_TIMEOUT, tls != null);
        });
        f.whenComplete((c, error) -> {
            if (error != null) {
                dialled.remove(address, f);
                if (unwrap(error) instanceof JdkChannel.DialException refused) {
                    LOG.warn("RPC connection not made: {}", refused.getMessage());   // a TLS or protocol mismatch: the operator's to fix
                }
            } else {
                c.whenClosed().thenRun(() -> dialled.remove(address, f));
            }
        });
        return f;
    }

    private static boolean usable(CompletableFuture<JdkChannel> f) {
        return !f.isCompletedExceptionally() && f.join().isOpen();
    }

    @Override
    public List<EndpointStats> stats() {
        return dispatcher.stats().entrySet().stream().sorted(Map.Entry.comparingByKey())
                .map(e -> e.getValue().view(e.getKey())).toList();
    }

    @Override
    public List<String> servers() {
        synchronized (serversLock) {
            return servers;
        }
    }

    @Override
    public void setServers(List<String> addresses) {
        List<String> normalised = addresses.stream().map(RpcEngine::withPort).distinct().toList();
        synchronized (serversLock) {
            if (!normalised.equals(servers)) {
                LOG.info("RPC servers: {}", normalised);
            }
            servers = normalised;
        }
    }

    /** {@code host} → {@code host:4647}; {@code [v6]} → {@code [v6]:4647}; anything with a port is kept. */
    static String withPort(String address) {
        String a = address.trim();
        if (a.startsWith("[")) {
            return a.contains("]:") ? a : a + ":" + DEFAULT_PORT;
        }
        int colons = a.length() - a.replace(":", "").length();
        if (colons == 1) {
            return a;
        }
        return colons == 0 ? a + ":" + DEFAULT_PORT : "[" + a + "]:" + DEFAULT_PORT;
    }

    @Override
    public void close() throws Exception {
        for (CompletableFuture<JdkChannel> f : dialled.values()) {
            f.thenAccept(JdkChannel::close);
        }
        dialled.clear();
        if (listener != null) {
            listener.close();
        }
        timer.shutdownNow();
        io.shutdownNow();
    }
}
