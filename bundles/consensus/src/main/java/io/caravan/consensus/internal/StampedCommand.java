package io.caravan.consensus.internal;

import java.nio.ByteBuffer;
import java.util.List;

import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

/**
 * The log entry's payload: the leader's clock reading (8 bytes, big-endian millis) followed by the command. The leader
 * stamps it once when it appends, so every replica, and every replay, applies the command with the same time.
 *
 * <p>A batch entry (several commands submitted while an earlier write was in flight, see {@link SubmitBatcher}) is
 * {@link #BATCH_MAGIC}, the stamp, then the commands framed by {@link CommandBatch}. A single-command entry starts with
 * its stamp's high byte, which is 0 for any millis from 1970 to the year 2 million, so it can never start with the
 * magic: entries written before batches existed decode as they always did.
 */
final class StampedCommand {
    private static final int STAMP_BYTES = Long.BYTES;
    static final byte BATCH_MAGIC = (byte) 0xCB;

    private StampedCommand() {
    }

    static ByteString encode(long timestampMillis, ByteString command) {
        // concat builds a rope: the command's bytes are not copied.
        return ByteString.copyFrom(ByteBuffer.allocate(STAMP_BYTES).putLong(0, timestampMillis)).concat(command);
    }

    static long timestamp(ByteString entry) {
        check(entry);
        return entry.substring(0, STAMP_BYTES).asReadOnlyByteBuffer().getLong();
    }

    static byte[] command(ByteString entry) {
        check(entry);
        return entry.substring(STAMP_BYTES).toByteArray();
    }

    private static void check(ByteString entry) {
        if (entry.size() < STAMP_BYTES) {
            // Only this class writes entries; a short one means a corrupt log, which must not be skipped.
            throw new IllegalStateException("log entry of " + entry.size() + " bytes has no timestamp");
        }
    }

    /** A batch entry: the magic, the stamp, then {@code framedCommands} (from {@link CommandBatch#encode}). */
    static ByteString encodeBatch(long timestampMillis, ByteString framedCommands) {
        if (timestampMillis >>> 56 != 0) {
            throw new IllegalArgumentException("timestamp " + timestampMillis + " out of range");
        }
        ByteBuffer head = ByteBuffer.allocate(1 + STAMP_BYTES).put(BATCH_MAGIC).putLong(timestampMillis).flip();
        return ByteString.copyFrom(head).concat(framedCommands);
    }

    static boolean isBatch(ByteString entry) {
        return !entry.isEmpty() && entry.byteAt(0) == BATCH_MAGIC;
    }

    static long batchTimestamp(ByteString entry) {
        if (entry.size() < 1 + STAMP_BYTES) {
            throw new IllegalStateException("batch log entry of " + entry.size() + " bytes has no timestamp");
        }
        return entry.substring(1, 1 + STAMP_BYTES).asReadOnlyByteBuffer().getLong();
    }

    static List<byte[]> batchCommands(ByteString entry) {
        batchTimestamp(entry);
        return CommandBatch.decode(entry.substring(1 + STAMP_BYTES));
    }
}
