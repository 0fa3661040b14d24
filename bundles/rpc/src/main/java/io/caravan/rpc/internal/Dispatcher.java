package io.caravan.rpc.internal;

import java.net.SocketException;
import java.net.http.HttpTimeoutException;
import java.net.http.WebSocketHandshakeException;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.rpc.Endpoint;
import io.caravan.rpc.LeaderLocator;
import io.caravan.rpc.StreamEndpoint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves every incoming call, for all endpoints alike: finds the endpoint, forwards it to the leader when it must run
 * there (waiting up to {@code leaderWait} for an election), decodes, runs the handler, encodes, counts. Handlers run
 * on the connection's thread and must not block: they return stages.
 */
final class Dispatcher {
    private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);
    static final int MAX_HOPS = 3;
    private static final long LEADER_POLL_MS = 50;

    /** Sends an already-encoded call to another server. */
    interface Forwarder {
        CompletableFuture<byte[]> forward(String address, String method, int hops, byte[] body);
    }

    private final Map<String, Endpoint<?, ?>> endpoints = new ConcurrentHashMap<>();
    private final Map<String, StreamEndpoint<?>> streamEndpoints = new ConcurrentHashMap<>();
    private final Map<String, Stats> stats = new ConcurrentHashMap<>();
    private final ScheduledExecutorService timer;
    private final Duration leaderWait;
    private volatile LeaderLocator locator;
    private volatile Forwarder forwarder;

    Dispatcher(ScheduledExecutorService timer, Duration leaderWait) {
        this.timer = timer;
        this.leaderWait = leaderWait;
    }

    /** Per endpoint: calls served here, those that failed, and the time they took (forwarded calls included). */
    record Stats(LongAdder calls, LongAdder errors, LongAdder nanos, LongAccumulator min, LongAccumulator max) {
        Stats() {
            this(new LongAdder(), new LongAdder(), new LongAdder(), new LongAccumulator(Math::min, Long.MAX_VALUE),
                    new LongAccumulator(Math::max, 0));
        }

        void took(long elapsed) {
            nanos.add(elapsed);
            min.accumulate(elapsed);
            max.accumulate(elapsed);
        }

        io.caravan.rpc.Rpc.EndpointStats view(String method) {
            long n = calls.sum();
            return new io.caravan.rpc.Rpc.EndpointStats(method, n, errors.sum(), nanos.sum() / 1e6,
                    n == 0 ? 0 : min.get() / 1e6, max.get() / 1e6);
        }
    }

    void setLocator(LeaderLocator locator) {
        this.locator = locator;
    }

    void setForwarder(Forwarder forwarder) {
        this.forwarder = forwarder;
    }

    /** Adds endpoints; a name already taken keeps its first endpoint, and the clash is logged. */
    void add(Iterable<Endpoint<?, ?>> added) {
        for (Endpoint<?, ?> e : added) {
            Endpoint<?, ?> before = endpoints.putIfAbsent(e.name(), e);
            if (before != null && before != e) {
                LOG.warn("RPC endpoint {} is declared twice; keeping the first", e.name());
            }
        }
    }

    void remove(Iterable<Endpoint<?, ?>> removed) {
        for (Endpoint<?, ?> e : removed) {
            endpoints.remove(e.name(), e);
        }
    }

    /** Adds streaming endpoints; as {@link #add}, a name already taken keeps its first. */
    void addStreams(Iterable<StreamEndpoint<?>> added) {
        for (StreamEndpoint<?> e : added) {
            StreamEndpoint<?> before = streamEndpoints.putIfAbsent(e.name(), e);
            if (before != null && before != e) {
                LOG.warn("RPC stream endpoint {} is declared twice; keeping the first", e.name());
            }
        }
    }

    void removeStreams(Iterable<StreamEndpoint<?>> removed) {
        for (StreamEndpoint<?> e : removed) {
            streamEndpoints.remove(e.name(), e);
        }
    }

    /** Hands a stream the other side opened to its endpoint's handler; any failure fails the stream. */
    void openStream(String method, byte[] body, Channel from, ChannelStream stream) {
        Stats s = stats.computeIfAbsent(method == null ? "?" : method, m -> new Stats());
        s.calls().increment();
        try {
            StreamEndpoint<?> endpoint = method == null ? null : streamEndpoints.get(method);
            if (endpoint == null) {
                throw new CaravanException(ErrorCode.NOT_FOUND, "rpc: can't find stream method " + method);
            }
            if (endpoint.callers() == Endpoint.Callers.SERVERS && !from.fromServer()) {
                throw new CaravanException(ErrorCode.PERMISSION_DENIED, "Permission denied: " + method
                        + " is for servers only");
            }
            open(endpoint, body, stream);
        } catch (RuntimeException e) {
            s.errors().increment();
            stream.fail(asCaravan(e));
        }
    }

    private static <Q> void open(StreamEndpoint<Q> endpoint, byte[] body, ChannelStream stream) {
        endpoint.handler().open(RpcCodec.decode(body, endpoint.request()), stream);
    }

    Map<String, Stats> stats() {
        return Map.copyOf(stats);
    }

    CompletableFuture<byte[]> serve(String method, int hops, byte[] body, Channel from) {
        long start = System.nanoTime();
        Stats s = stats.computeIfAbsent(method == null ? "?" : method, m -> new Stats());
        s.calls().increment();
        CompletableFuture<byte[]> result;
        try {
            result = route(method, hops, body, from);
        } catch (RuntimeException e) {
            result = CompletableFuture.failedFuture(e);
        }
        return result.whenComplete((ok, error) -> {
            s.took(System.nanoTime() - start);
            if (error != null) {
                s.errors().increment();
                LOG.debug("RPC {} from {} failed: {}", method, from == null ? "local" : from.peer(), error.toString());
            }
        });
    }

    /** @param from the connection the call came on; null for a call made inside this agent */
    private CompletableFuture<byte[]> route(String method, int hops, byte[] body, Channel from) {
        Endpoint<?, ?> endpoint = method == null ? null : endpoints.get(method);
        if (endpoint == null) {
            throw new CaravanException(ErrorCode.NOT_FOUND, "rpc: can't find method " + method);
        }
        if (endpoint.callers() == Endpoint.Callers.SERVERS && from != null && !from.fromServer()) {
            throw new CaravanException(ErrorCode.PERMISSION_DENIED, "Permission denied: " + method
                    + " is for servers only");
        }
        LeaderLocator l = locator;
        if (endpoint.routing() == Endpoint.Routing.LEADER && l != null && !l.isLeader()) {
            if (hops >= MAX_HOPS) {
                throw new CaravanException(ErrorCode.NO_LEADER, "No cluster leader (forwarded " + hops + " times)");
            }
            CompletableFuture<byte[]> forwarded = new CompletableFuture<>();
            forwardWhenLed(l, method, hops, body, System.nanoTime() + leaderWait.toNanos(), forwarded);
            return forwarded;
        }
        return invoke(endpoint, body);
    }

    /** Forwards to the leader, or serves here if this server became it; polls while no leader is known. */
    private void forwardWhenLed(LeaderLocator l, String method, int hops, byte[] body, long deadline,
                                CompletableFuture<byte[]> result) {
        if (l.isLeader()) {
            route(method, hops, body, null).whenComplete((ok, error) -> complete(result, ok, error));
            return;
        }
        Optional<String> leader = l.leaderRpcAddress();
        Forwarder f = forwarder;
        if (leader.isPresent() && f != null) {
            f.forward(leader.get(), method, hops + 1, body).whenComplete((ok, error) -> {
                if (error != null && asCaravan(error).code() == ErrorCode.NO_LEADER && System.nanoTime() < deadline) {
                    // The leader we knew is gone (or unreachable): wait for the next one, as Nomad holds RPCs.
                    timer.schedule(() -> forwardWhenLed(l, method, hops, body, deadline, result), LEADER_POLL_MS,
                            TimeUnit.MILLISECONDS);
                } else {
                    complete(result, ok, error);
                }
            });
        } else if (System.nanoTime() < deadline) {
            timer.schedule(() -> forwardWhenLed(l, method, hops, body, deadline, result), LEADER_POLL_MS,
                    TimeUnit.MILLISECONDS);
        } else {
            result.completeExceptionally(new CaravanException(ErrorCode.NO_LEADER, "No cluster leader"));
        }
    }

    private static void complete(CompletableFuture<byte[]> result, byte[] ok, Throwable error) {
        if (error != null) {
            result.completeExceptionally(error);
        } else {
            result.complete(ok);
        }
    }

    private static <Q, R> CompletableFuture<byte[]> invoke(Endpoint<Q, R> endpoint, byte[] body) {
        Q request = RpcCodec.decode(body, endpoint.request());
        return endpoint.handler().handle(request).toCompletableFuture().thenApply(RpcCodec::encode);
    }

    /** Unwraps completion wrappers; anything that is not a CaravanException is an internal error. */
    static CaravanException asCaravan(Throwable error) {
        Throwable t = error;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        if (t instanceof CaravanException c) {
            return c;
        }
        if (t instanceof Channel.ChannelClosedException || unreachable(t)) {
            // The leader went away mid-call, or cannot be reached: the caller may retry.
            return new CaravanException(ErrorCode.NO_LEADER, null, "No cluster leader: " + describe(t), t);
        }
        LOG.warn("RPC handler failed", t);
        return new CaravanException(ErrorCode.INTERNAL, null, describe(t), t);
    }

    /** A connection to the other server could not be made or broke (not an error of the handler there). */
    private static boolean unreachable(Throwable t) {
        return t instanceof SocketException || t instanceof HttpTimeoutException
                || t instanceof WebSocketHandshakeException || t instanceof ClosedChannelException
                || t instanceof JdkChannel.DialException;
    }

    /** A message a user can read, also for exceptions that carry none (a refused connection). */
    private static String describe(Throwable t) {
        return t.getMessage() != null ? t.getMessage() : t.getClass().getSimpleName();
    }
}
