package io.caravan.consensus.internal;

import java.nio.ByteBuffer;

import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

/**
 * The log entry's payload: the leader's clock reading (8 bytes, big-endian millis) followed by the command. The leader
 * stamps it once when it appends, so every replica, and every replay, applies the command with the same time.
 */
final class StampedCommand {
    private static final int STAMP_BYTES = Long.BYTES;

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
}
