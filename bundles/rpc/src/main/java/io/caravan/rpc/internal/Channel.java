package io.caravan.rpc.internal;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.rpc.Endpoint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection between two agents, either side of which may call the other: calls are multiplexed by envelope id,
 * requests that arrive go to the {@link Dispatcher}. Subclasses write whole messages and report what they receive.
 */
abstract class Channel {
    private static final Logger LOG = LoggerFactory.getLogger(Channel.class);

    private final Dispatcher dispatcher;
    private final String peer;
    private final Map<Long, CompletableFuture<byte[]>> pending = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final CompletableFuture<Void> closed = new CompletableFuture<>();
    /** Streams by key: those this side opened under their id, those the other side opened under its id negated. */
    private final Map<Long, ChannelStream> streams = new ConcurrentHashMap<>();

    Channel(Dispatcher dispatcher, String peer) {
        this.dispatcher = dispatcher;
        this.peer = peer;
    }

    /** Sends one whole message; messages are delivered in the order they were written. */
    protected abstract CompletableFuture<?> write(byte[] message);

    /** Whether the other side proved it is a server (see {@link Endpoint.Callers#SERVERS}). */
    boolean fromServer() {
        return false;
    }

    /** Closes the connection; {@link #closed(Throwable)} follows. */
    abstract void close();

    String peer() {
        return peer;
    }

    /** Completes when the connection is gone. */
    CompletableFuture<Void> whenClosed() {
        return closed;
    }

    boolean isOpen() {
        return !closed.isDone();
    }

    /** Calls the other side; the stage fails with {@link ChannelClosedException} if the connection goes first. */
    CompletableFuture<byte[]> call(String method, int hops, byte[] body) {
        long id = ids.incrementAndGet();
        CompletableFuture<byte[]> reply = new CompletableFuture<>();
        pending.put(id, reply);
        if (!isOpen()) {
            pending.remove(id);
            return CompletableFuture.failedFuture(new ChannelClosedException(peer));
        }
        write(RpcCodec.encode(Envelope.request(id, method, hops, body))).whenComplete((ok, error) -> {
            if (error != null && pending.remove(id) != null) {
                reply.completeExceptionally(new ChannelClosedException(peer, error));
            }
        });
        return reply;
    }

    /** Opens a stream on the other side; one the connection is already gone for comes back failed. */
    ChannelStream openStream(String method, byte[] body) {
        long id = ids.incrementAndGet();
        ChannelStream stream = new ChannelStream(this, id);
        streams.put(id, stream);
        if (!isOpen()) {
            stream.remoteFailed(closedError(null));
            return stream;
        }
        send(Envelope.streamOpen(id, method, body));
        return stream;
    }

    CompletableFuture<?> send(Envelope envelope) {
        return write(RpcCodec.encode(envelope));
    }

    /** The stream ended: it no longer hears from the other side. */
    void forget(long key) {
        streams.remove(key);
    }

    private CaravanException closedError(Throwable why) {
        return new CaravanException(ErrorCode.INTERNAL, null, "stream ended: RPC connection with " + peer
                + " closed" + (why == null ? "" : ": " + why.getMessage()), why);
    }

    /** A whole message arrived. */
    protected void received(byte[] message) {
        Envelope envelope;
        try {
            envelope = RpcCodec.decode(message, Envelope.class);
        } catch (CaravanException e) {
            LOG.warn("Dropping a malformed RPC message from {}: {}", peer, e.getMessage());
            return;
        }
        switch (envelope.kind()) {
            case Envelope.REQUEST -> serve(envelope);
            case Envelope.RESPONSE -> complete(envelope.id()).ifPresent(f -> f.complete(envelope.body()));
            case Envelope.ERROR -> complete(envelope.id()).ifPresent(f -> f.completeExceptionally(asException(envelope)));
            case Envelope.STREAM_OPEN -> {
                ChannelStream stream = new ChannelStream(this, -envelope.id());
                streams.put(stream.key(), stream);
                dispatcher.openStream(envelope.method(), envelope.body(), this, stream);
            }
            case Envelope.STREAM_DATA -> stream(envelope).ifPresent(s -> s.arrived(envelope.body()));
            case Envelope.STREAM_CREDIT -> stream(envelope).ifPresent(s -> s.credit(envelope.credit()));
            case Envelope.STREAM_CLOSE -> stream(envelope).ifPresent(s -> {
                if (envelope.code() == null) {
                    s.remoteClosed();
                } else {
                    s.remoteFailed(asException(envelope));
                }
            });
            default -> LOG.warn("Dropping an RPC message of unknown kind {} from {}", envelope.kind(), peer);
        }
    }

    /** The stream an envelope from the other side is for: its id is the other side's key, negated here. */
    private java.util.Optional<ChannelStream> stream(Envelope envelope) {
        return java.util.Optional.ofNullable(streams.get(-envelope.id()));
    }

    private java.util.Optional<CompletableFuture<byte[]>> complete(long id) {
        return java.util.Optional.ofNullable(pending.remove(id));
    }

    private void serve(Envelope request) {
        dispatcher.serve(request.method(), request.hops(), request.body(), this).whenComplete((body, error) -> {
            byte[] reply;
            if (error == null) {
                reply = RpcCodec.encode(Envelope.response(request.id(), body));
            } else {
                CaravanException e = Dispatcher.asCaravan(error);
                reply = RpcCodec.encode(Envelope.error(request.id(), e.code().name(), e.field().orElse(null),
                        e.getMessage()));
            }
            write(reply);
        });
    }

    private static CaravanException asException(Envelope error) {
        ErrorCode code;
        try {
            code = ErrorCode.valueOf(error.code());
        } catch (IllegalArgumentException | NullPointerException unknown) {
            code = ErrorCode.INTERNAL;
        }
        return new CaravanException(code, error.field(), error.message(), null);
    }

    /** The connection is gone: every call still waiting fails, every open stream too, so callers can try another server. */
    protected void closed(Throwable why) {
        if (closed.complete(null)) {
            LOG.debug("RPC connection with {} closed: {}", peer, why == null ? "normally" : why.toString());
        }
        for (Long id : pending.keySet()) {
            CompletableFuture<byte[]> f = pending.remove(id);
            if (f != null) {
                f.completeExceptionally(new ChannelClosedException(peer, why));
            }
        }
        for (ChannelStream stream : streams.values()) {
            stream.remoteFailed(closedError(why));
        }
    }

    /** The connection failed before the reply came: the call may or may not have been served. */
    static final class ChannelClosedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ChannelClosedException(String peer) {
            this(peer, null);
        }

        ChannelClosedException(String peer, Throwable cause) {
            super("RPC connection with " + peer + " closed", cause);
        }
    }
}
