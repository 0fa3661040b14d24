package io.caravan.consensus.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

import io.caravan.consensus.Applied;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;

/**
 * Groups concurrent submits into one Raft entry. Up to {@code maxInFlight} Ratis writes go out as they come, one
 * command each (so a lone client waits for nothing); while that many are in flight, further commands queue, and each
 * finished write sends everything queued (up to {@code maxBatchBytes}) as ONE entry. Raft's per-entry cost (the log
 * write and its fsync, a round of append RPCs, the reply) is then paid once per batch, not per command.
 *
 * <p>The request a writer gets is {@link #SINGLE} + the command, or {@link #BATCH} + the commands framed by
 * {@link CommandBatch}; {@link CommandStateMachine} turns it into a log entry ({@link StampedCommand}) and applies a
 * batch's commands in order at the entry's index, replying with each one's result, which completes that caller's own
 * stage. Commands queue in arrival order and a batch keeps it. {@link RaftNode} batches only for a
 * {@link io.caravan.consensus.BatchingCommandHandler}; for any other handler it allows unbounded writes in flight, so
 * nothing ever queues and every command is an entry of its own, as before batching existed.
 */
final class SubmitBatcher {
    static final byte SINGLE = 0;
    static final byte BATCH = 1;

    /** Sends one request through Raft, completing {@code written} as {@link RaftNode} completes a submit. */
    interface Writer {
        void write(ByteString request, CompletableFuture<Applied> written);
    }

    private record Pending(byte[] command, CompletableFuture<Applied> result) {
    }

    private final Writer writer;
    private final Executor sender;
    private final int maxInFlight;
    private final int maxBatchBytes;
    private final ArrayDeque<Pending> queue = new ArrayDeque<>();
    private int inFlight;   // guarded by this

    /**
     * @param sender runs the sends of queued commands: a write completes on Ratis' apply thread, which must not be the
     *     one that appends the next entry
     */
    SubmitBatcher(Writer writer, Executor sender, int maxInFlight, int maxBatchBytes) {
        if (maxInFlight < 1 || maxBatchBytes < 1) {
            throw new IllegalArgumentException("maxInFlight " + maxInFlight + ", maxBatchBytes " + maxBatchBytes);
        }
        this.writer = writer;
        this.sender = sender;
        this.maxInFlight = maxInFlight;
        this.maxBatchBytes = maxBatchBytes;
    }

    static boolean isBatchRequest(ByteString request) {
        return kind(request) == BATCH;
    }

    /** The request after its kind byte: one command, or the framed commands of a batch. */
    static ByteString payload(ByteString request) {
        kind(request);
        return request.substring(1);
    }

    private static byte kind(ByteString request) {
        if (request.isEmpty() || (request.byteAt(0) != SINGLE && request.byteAt(0) != BATCH)) {
            throw new IllegalArgumentException("not a Caravan submit request (" + request.size() + " bytes)");
        }
        return request.byteAt(0);
    }

    void submit(byte[] command, CompletableFuture<Applied> result) {
        Pending p = new Pending(command, result);
        synchronized (this) {
            if (inFlight >= maxInFlight || !queue.isEmpty()) {
                queue.add(p);
                return;
            }
            inFlight++;
        }
        send(List.of(p));
    }

    /** Commands waiting for a write slot; for tests. */
    synchronized int queued() {
        return queue.size();
    }

    private void send(List<Pending> batch) {
        CompletableFuture<Applied> written = new CompletableFuture<>();
        if (batch.size() == 1) {
            Pending p = batch.get(0);
            byte[] request = new byte[1 + p.command().length];
            request[0] = SINGLE;
            System.arraycopy(p.command(), 0, request, 1, p.command().length);
            written.whenComplete((applied, error) -> {
                if (error != null) {
                    p.result().completeExceptionally(unwrap(error));
                } else {
                    p.result().complete(applied);
                }
                sendQueued();
            });
            writer.write(UnsafeByteOperations.unsafeWrap(request), written);
            return;
        }
        List<byte[]> commands = new ArrayList<>(batch.size());
        batch.forEach(p -> commands.add(p.command()));
        byte[] request = CommandBatch.encode(1, commands);
        request[0] = BATCH;
        written.whenComplete((applied, error) -> {
            try {
                if (error != null) {
                    failed(batch, unwrap(error));
                } else {
                    distribute(batch, applied);
                }
            } finally {
                sendQueued();
            }
        });
        writer.write(UnsafeByteOperations.unsafeWrap(request), written);
    }

    private static void distribute(List<Pending> batch, Applied applied) {
        List<byte[]> results;
        try {
            results = CommandBatch.decode(UnsafeByteOperations.unsafeWrap(applied.result()));
        } catch (IllegalStateException e) {
            results = List.of();
        }
        if (results.size() != batch.size()) {
            IllegalStateException e = new IllegalStateException("The batch at log entry " + applied.index()
                    + " of " + batch.size() + " commands answered " + results.size() + " results");
            batch.forEach(p -> p.result().completeExceptionally(e));
            return;
        }
        for (int i = 0; i < batch.size(); i++) {
            batch.get(i).result().complete(new Applied(applied.index(), results.get(i)));
        }
    }

    /**
     * A failed write fails every command of it, except when the handler threw mid-batch: the commands before that one
     * were applied and get their results; that one, and those after it (never applied: the server stops), fail.
     */
    private static void failed(List<Pending> batch, Throwable error) {
        CommandStateMachine.BatchFailure partial = CommandStateMachine.BatchFailure.in(error);
        int applied = partial == null ? 0 : Math.min(partial.applied.size(), batch.size());
        for (int i = 0; i < applied; i++) {
            batch.get(i).result().complete(new Applied(partial.index, partial.applied.get(i)));
        }
        for (int i = applied; i < batch.size(); i++) {
            batch.get(i).result().completeExceptionally(partial == null ? error : i == applied
                    ? new IllegalStateException("Applying the command failed; the Raft server stopped: "
                            + partial.getCause(), partial)
                    : new IllegalStateException("The Raft server stopped after a command failed to apply", partial));
        }
    }

    /** A write finished: its slot goes to everything queued meanwhile, or back to the pool if nothing is. */
    private void sendQueued() {
        List<Pending> batch = new ArrayList<>();
        synchronized (this) {
            int bytes = 0;
            while (!queue.isEmpty()) {
                int size = Integer.BYTES + queue.peek().command().length;
                if (!batch.isEmpty() && bytes + size > maxBatchBytes) {
                    break;
                }
                bytes += size;
                batch.add(queue.poll());
            }
            if (batch.isEmpty()) {
                inFlight--;
                return;
            }
        }
        try {
            sender.execute(() -> send(batch));
        } catch (RejectedExecutionException stopped) {   // the node is closing
            IllegalStateException e = new IllegalStateException("The Raft server is stopped", stopped);
            batch.forEach(p -> p.result().completeExceptionally(e));
            sendQueued();
        }
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }
}
