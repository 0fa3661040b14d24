package io.caravan.consensus.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.Test;

class StampedCommandTest {
    @Test
    void roundTrips() {
        ByteString entry = StampedCommand.encode(1_700_000_000_123L, ByteString.copyFromUtf8("job"));
        assertEquals(1_700_000_000_123L, StampedCommand.timestamp(entry));
        assertArrayEquals("job".getBytes(), StampedCommand.command(entry));
        assertArrayEquals(new byte[0], StampedCommand.command(StampedCommand.encode(5, ByteString.EMPTY)));
    }

    @Test
    void anEntryWithoutAStampIsCorrupt() {
        assertThrows(IllegalStateException.class, () -> StampedCommand.timestamp(ByteString.copyFromUtf8("abc")));
    }

    @Test
    void batchEntriesRoundTripAndOldSingleEntriesAreNotMistakenForThem() {
        ByteString framed = ByteString.copyFrom(CommandBatch.encode(0,
                java.util.List.of("a".getBytes(), new byte[0], "ccc".getBytes())));
        ByteString entry = StampedCommand.encodeBatch(1_700_000_000_123L, framed);
        assertTrue(StampedCommand.isBatch(entry));
        assertEquals(1_700_000_000_123L, StampedCommand.batchTimestamp(entry));
        java.util.List<byte[]> commands = StampedCommand.batchCommands(entry);
        assertEquals(3, commands.size());
        assertArrayEquals("a".getBytes(), commands.get(0));
        assertArrayEquals(new byte[0], commands.get(1));
        assertArrayEquals("ccc".getBytes(), commands.get(2));

        // A single-command entry, as written before batches existed, whatever its command's first byte.
        ByteString single = StampedCommand.encode(System.currentTimeMillis(),
                ByteString.copyFrom(new byte[] {StampedCommand.BATCH_MAGIC, 1, 2}));
        assertFalse(StampedCommand.isBatch(single));
        assertArrayEquals(new byte[] {StampedCommand.BATCH_MAGIC, 1, 2}, StampedCommand.command(single));
    }

    @Test
    void aTruncatedBatchIsCorrupt() {
        ByteString framed = ByteString.copyFrom(CommandBatch.encode(0, java.util.List.of("abc".getBytes())));
        ByteString entry = StampedCommand.encodeBatch(5, framed);
        assertThrows(IllegalStateException.class,
                () -> StampedCommand.batchCommands(entry.substring(0, entry.size() - 1)));
    }
}
