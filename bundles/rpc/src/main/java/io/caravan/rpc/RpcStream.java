package io.caravan.rpc;

import java.util.concurrent.CompletionStage;

import io.caravan.api.CaravanException;
import org.osgi.annotation.versioning.ConsumerType;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A call whose answer is a sequence of frames both ways ({@code alloc exec}, a followed log), multiplexed on an RPC
 * connection. Each side may send until it {@link #close closes} its half; either side may {@link #fail} the whole
 * stream, and the other side receives the error. Flow control is by window: a side has at most
 * {@link #WINDOW} frames in flight that the other side's {@link Receiver} has not taken, so neither side buffers
 * more than that. A dropped connection fails every stream on it, on both sides, at once.
 */
@ProviderType
public interface RpcStream {
    /** Frames a side may send before the receiver takes them; what each side buffers at most. */
    int WINDOW = 32;

    /**
     * Sends one frame, after the frames sent before. The stage completes once the frame is within the window and
     * written; a producer that waits for it before sending the next never buffers more than one frame here. Fails
     * when the stream has ended or this side closed.
     */
    CompletionStage<Void> send(byte[] frame);

    /** This side sends nothing more (after the frames already sent). Idempotent. */
    void close();

    /** Ends the stream both ways: the other side's receiver gets {@code error}, and so does this side's. */
    void fail(CaravanException error);

    /**
     * Sets what takes the other side's frames; once. Frames that arrived before it wait (at most {@link #WINDOW}).
     */
    void receive(Receiver receiver);

    /** Completes when both sides closed; exceptionally when the stream failed. */
    CompletionStage<Void> whenDone();

    /** Takes the other side's frames, one at a time, in order. */
    @ConsumerType
    interface Receiver {
        /**
         * One frame. The next comes once the returned stage completes, which also gives the sender its window back:
         * a slow consumer completes it late and the sender pauses. A stage that fails fails the stream.
         */
        CompletionStage<?> data(byte[] frame);

        /** The other side closed its half ({@code error} null, after every frame), or the stream failed. Once. */
        void end(CaravanException error);
    }
}
