package io.caravan.rpc.internal;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.rpc.RpcStream;

/**
 * One stream on a {@link Channel}, either end. Sending: frames wait here until the other side has window for them
 * (it gives window back as its receiver takes frames); a producer that waits for {@link #send}'s stage keeps that
 * to one frame. Receiving: frames queue until the receiver takes them, at most {@link #WINDOW} (a sender that sends
 * more breaks the protocol and fails the stream). Writes happen under this object's lock, so they leave in order.
 */
final class ChannelStream implements RpcStream {
    private final Channel channel;
    /** This stream's key on its channel, and the id its envelopes carry. */
    private final long key;
    private final CompletableFuture<Void> done = new CompletableFuture<>();

    // ---- all guarded by this -----------------------------------------------------------------------------------
    private int credit = WINDOW;
    private final ArrayDeque<Outgoing> waiting = new ArrayDeque<>();
    private boolean closing;
    private boolean closeSent;
    private final ArrayDeque<byte[]> inbox = new ArrayDeque<>();
    private Receiver receiver;
    private boolean delivering;
    private boolean remoteClosed;
    private boolean endDelivered;
    /** Frames the receiver took since window was last given back. */
    private int taken;
    private CaravanException failure;

    private record Outgoing(byte[] frame, CompletableFuture<Void> sent) {}

    ChannelStream(Channel channel, long key) {
        this.channel = channel;
        this.key = key;
    }

    long key() {
        return key;
    }

    @Override
    public CompletionStage<Void> send(byte[] frame) {
        CompletableFuture<Void> sent = new CompletableFuture<>();
        synchronized (this) {
            if (failure != null) {
                return CompletableFuture.failedFuture(failure);
            }
            if (closing) {
                return CompletableFuture.failedFuture(new CaravanException(ErrorCode.INTERNAL,
                        "stream already closed by this side"));
            }
            waiting.add(new Outgoing(frame, sent));
            drain();
        }
        return sent;
    }

    /** Writes what the window allows, then the half-close once nothing waits. Under the lock. */
    private void drain() {
        while (credit > 0 && !waiting.isEmpty()) {
            Outgoing next = waiting.poll();
            credit--;
            // Completed off the connection's thread and this lock: the producer's next step runs there.
            channel.send(Envelope.streamData(key, next.frame())).whenCompleteAsync((ok, error) -> {
                if (error != null) {
                    next.sent().completeExceptionally(Dispatcher.asCaravan(error));
                } else {
                    next.sent().complete(null);
                }
            });
        }
        if (closing && !closeSent && waiting.isEmpty() && failure == null) {
            closeSent = true;
            channel.send(Envelope.streamClose(key, null, null, null));
            finishIfDone();
        }
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closing || failure != null) {
                return;
            }
            closing = true;
            drain();
        }
    }

    @Override
    public void fail(CaravanException error) {
        synchronized (this) {
            if (failure != null || done.isDone()) {
                return;
            }
            if (!closeSent) {
                closeSent = true;
                channel.send(Envelope.streamClose(key, error.code().name(), error.field().orElse(null),
                        error.getMessage()));
            }
            failed(error);
        }
        deliver();
    }

    /** The other side failed the stream, or the connection went. */
    void remoteFailed(CaravanException error) {
        synchronized (this) {
            if (failure != null || done.isDone()) {
                return;
            }
            closeSent = true;
            failed(error);
        }
        deliver();
    }

    /** Under the lock. */
    private void failed(CaravanException error) {
        failure = error;
        inbox.clear();
        for (Outgoing o : waiting) {
            o.sent().completeExceptionally(error);
        }
        waiting.clear();
        channel.forget(key);
        done.completeExceptionally(error);
    }

    /** The other side closed its half. */
    void remoteClosed() {
        synchronized (this) {
            remoteClosed = true;
        }
        deliver();
    }

    /** The other side's receiver took {@code frames} frames: that much more may be sent. */
    void credit(int frames) {
        synchronized (this) {
            if (failure == null && frames > 0) {
                credit += frames;
                drain();
            }
        }
    }

    /** A frame from the other side. */
    void arrived(byte[] frame) {
        boolean overrun;
        synchronized (this) {
            if (failure != null || remoteClosed) {
                return;
            }
            overrun = inbox.size() >= WINDOW;
            if (!overrun) {
                inbox.add(frame == null ? new byte[0] : frame);
            }
        }
        if (overrun) {
            fail(new CaravanException(ErrorCode.INTERNAL, "stream protocol error: more than " + WINDOW
                    + " frames sent without window"));
            return;
        }
        deliver();
    }

    @Override
    public void receive(Receiver r) {
        synchronized (this) {
            if (receiver != null) {
                throw new IllegalStateException("the stream already has a receiver");
            }
            receiver = r;
        }
        deliver();
    }

    /** Hands the receiver what is waiting, one frame at a time; then the end. */
    private void deliver() {
        while (true) {
            byte[] frame = null;
            boolean end = false;
            CaravanException error = null;
            Receiver r;
            synchronized (this) {
                if (receiver == null || delivering || endDelivered) {
                    return;
                }
                if (failure != null) {
                    endDelivered = true;
                    end = true;
                    error = failure;
                } else if (!inbox.isEmpty()) {
                    frame = inbox.poll();
                    delivering = true;
                } else if (remoteClosed) {
                    endDelivered = true;
                    end = true;
                } else {
                    return;
                }
                r = receiver;
            }
            if (end) {
                r.end(error);
                synchronized (this) {
                    finishIfDone();
                }
                return;
            }
            CompletableFuture<?> took;
            try {
                took = r.data(frame).toCompletableFuture();
            } catch (RuntimeException e) {
                took = CompletableFuture.failedFuture(e);
            }
            if (!took.isDone()) {
                took.whenComplete((ok, e) -> {
                    if (taken(e)) {
                        deliver();
                    }
                });
                return;
            }
            CompletableFuture<?> t = took;
            if (!taken(t.isCompletedExceptionally() ? t.handle((ok, e) -> e).join() : null)) {
                return;
            }
        }
    }

    /** The receiver took a frame (or failed to): gives window back by halves. @return whether to deliver on */
    private boolean taken(Throwable error) {
        if (error != null) {
            synchronized (this) {
                delivering = false;
            }
            fail(Dispatcher.asCaravan(error));
            return false;
        }
        synchronized (this) {
            delivering = false;
            if (failure == null && ++taken >= WINDOW / 2) {
                channel.send(Envelope.streamCredit(key, taken));
                taken = 0;
            }
        }
        return true;
    }

    /** Under the lock: both halves closed normally. */
    private void finishIfDone() {
        if (failure == null && closeSent && endDelivered && !done.isDone()) {
            channel.forget(key);
            done.complete(null);
        }
    }

    @Override
    public CompletionStage<Void> whenDone() {
        return done;
    }
}
