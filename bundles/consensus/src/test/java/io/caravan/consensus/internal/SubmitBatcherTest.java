package io.caravan.consensus.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import io.caravan.consensus.Applied;
import io.caravan.consensus.NotLeaderException;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.Test;

/** The batcher against a fake writer that holds each write until the test answers it. */
class SubmitBatcherTest {
    private record Write(ByteString request, CompletableFuture<Applied> written) {
        boolean batch() {
            return SubmitBatcher.isBatchRequest(request);
        }

        List<byte[]> commands() {
            return batch() ? CommandBatch.decode(SubmitBatcher.payload(request))
                    : List.of(SubmitBatcher.payload(request).toByteArray());
        }

        /** Answers as the state machine would: each command's result is the command reversed. */
        void apply(long index) {
            List<byte[]> results = commands().stream().map(SubmitBatcherTest::reversed).toList();
            written.complete(new Applied(index, batch() ? CommandBatch.encode(0, results) : results.get(0)));
        }
    }

    private final List<Write> writes = new ArrayList<>();

    private SubmitBatcher batcher(int maxInFlight, int maxBatchBytes) {
        return new SubmitBatcher((request, written) -> writes.add(new Write(request, written)), Runnable::run,
                maxInFlight, maxBatchBytes);
    }

    private static byte[] cmd(int i) {
        return new byte[] {(byte) i, (byte) (i + 1)};
    }

    private static byte[] reversed(byte[] b) {
        byte[] r = new byte[b.length];
        for (int i = 0; i < b.length; i++) {
            r[i] = b[b.length - 1 - i];
        }
        return r;
    }

    private static List<CompletableFuture<Applied>> submit(SubmitBatcher batcher, int from, int to) {
        List<CompletableFuture<Applied>> results = new ArrayList<>();
        for (int i = from; i < to; i++) {
            CompletableFuture<Applied> f = new CompletableFuture<>();
            batcher.submit(cmd(i), f);
            results.add(f);
        }
        return results;
    }

    @Test
    void writesGoOutAloneUntilTheLimitInFlightThenQueuedOnesGoAsOneBatchInOrder() throws Exception {
        SubmitBatcher batcher = batcher(2, 1 << 20);
        List<CompletableFuture<Applied>> results = submit(batcher, 0, 10);

        assertEquals(2, writes.size(), "two writes in flight, the rest queued");
        assertFalse(writes.get(0).batch());
        assertArrayEquals(cmd(0), writes.get(0).commands().get(0));
        assertArrayEquals(cmd(1), writes.get(1).commands().get(0));
        assertEquals(8, batcher.queued());

        writes.get(0).apply(5);
        assertEquals(new Applied(5, reversed(cmd(0))).index(), results.get(0).get().index());
        assertArrayEquals(reversed(cmd(0)), results.get(0).get().result());
        assertEquals(3, writes.size(), "the finished write's slot sends everything queued");
        Write batch = writes.get(2);
        assertTrue(batch.batch());
        List<byte[]> commands = batch.commands();
        assertEquals(8, commands.size());
        for (int i = 0; i < 8; i++) {
            assertArrayEquals(cmd(i + 2), commands.get(i), "command " + i + " of the batch, in submission order");
        }

        writes.get(1).apply(6);
        batch.apply(7);
        for (int i = 2; i < 10; i++) {
            Applied applied = results.get(i).get();
            assertEquals(7, applied.index(), "a batch's commands share its log index");
            assertArrayEquals(reversed(cmd(i)), applied.result(), "each caller gets its own command's result");
        }
        assertEquals(0, batcher.queued());

        submit(batcher, 10, 11);
        assertEquals(4, writes.size(), "idle again: the next submit goes out at once, alone");
        assertFalse(writes.get(3).batch());
    }

    @Test
    void aBatchIsBoundedInBytes() {
        SubmitBatcher batcher = batcher(1, 3 * (Integer.BYTES + 2));
        submit(batcher, 0, 8);
        writes.get(0).apply(1);
        assertEquals(3, writes.get(1).commands().size());
        writes.get(1).apply(2);
        assertEquals(3, writes.get(2).commands().size());
        writes.get(2).apply(3);
        assertEquals(1, writes.get(3).commands().size());
        assertFalse(writes.get(3).batch(), "a lone leftover goes as a single command");
    }

    @Test
    void aFailedWriteFailsEachOfItsCommandsWithTheSameError() {
        SubmitBatcher batcher = batcher(1, 1 << 20);
        List<CompletableFuture<Applied>> results = submit(batcher, 0, 4);
        writes.get(0).apply(1);
        NotLeaderException notLeader = NotLeaderException.leaderIs("127.0.0.1:1");
        writes.get(1).written().completeExceptionally(notLeader);
        for (int i = 1; i < 4; i++) {
            ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                    results.get(i)::get);
            assertSame(notLeader, e.getCause());
        }
        submit(batcher, 4, 5);
        assertEquals(3, writes.size(), "the slot was given back");
    }

    @Test
    void whenTheHandlerThrowsMidBatchOnlyTheCommandsBeforeItSucceed() throws Exception {
        SubmitBatcher batcher = batcher(1, 1 << 20);
        List<CompletableFuture<Applied>> results = submit(batcher, 0, 6);
        writes.get(0).apply(1);
        IllegalArgumentException bug = new IllegalArgumentException("bug");
        // commands 1 and 2 applied, command 3 threw; 4 and 5 were never applied
        writes.get(1).written().completeExceptionally(new IllegalStateException("Raft append failed",
                new CommandStateMachine.BatchFailure(9, List.of(new byte[] {1}, new byte[] {2}), bug)));

        assertEquals(9, results.get(1).get().index());
        assertArrayEquals(new byte[] {1}, results.get(1).get().result());
        assertArrayEquals(new byte[] {2}, results.get(2).get().result());
        ExecutionException failed = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                results.get(3)::get);
        assertInstanceOf(IllegalStateException.class, failed.getCause());
        assertTrue(failed.getCause().getMessage().contains("bug"), failed.getCause().getMessage());
        for (int i = 4; i < 6; i++) {
            ExecutionException stopped = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                    results.get(i)::get);
            assertTrue(stopped.getCause().getMessage().contains("stopped"), stopped.getCause().getMessage());
        }
    }

    @Test
    void requestsCarryTheirKind() {
        SubmitBatcher batcher = batcher(1, 1 << 20);
        submit(batcher, 0, 3);
        assertEquals(SubmitBatcher.SINGLE, writes.get(0).request().byteAt(0));
        writes.get(0).apply(1);
        assertEquals(SubmitBatcher.BATCH, writes.get(1).request().byteAt(0));
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> SubmitBatcher.payload(ByteString.copyFromUtf8("xyz")));
    }

    @Test
    void queuedCommandsAreSentOnTheSenderNotOnTheThreadThatCompletedTheWrite() throws Exception {
        List<Runnable> sends = new ArrayList<>();
        SubmitBatcher batcher = new SubmitBatcher((request, written) -> writes.add(new Write(request, written)),
                sends::add, 1, 1 << 20);
        List<CompletableFuture<Applied>> results = submit(batcher, 0, 3);
        writes.get(0).apply(1);
        assertEquals(1, writes.size(), "not sent inline");
        assertEquals(1, sends.size());
        sends.get(0).run();
        assertEquals(2, writes.get(1).commands().size());
        writes.get(1).apply(2);
        assertArrayEquals(reversed(cmd(2)), results.get(2).get().result());
    }

    @Test
    void aStoppedSenderFailsTheQueuedCommands() {
        SubmitBatcher batcher = new SubmitBatcher((request, written) -> writes.add(new Write(request, written)),
                command -> {
                    throw new java.util.concurrent.RejectedExecutionException("shut down");
                }, 1, 1 << 20);
        List<CompletableFuture<Applied>> results = submit(batcher, 0, 3);
        writes.get(0).apply(1);
        assertTrue(results.get(1).isCompletedExceptionally());
        assertTrue(results.get(2).isCompletedExceptionally());
        assertEquals(0, batcher.queued());
    }
}
