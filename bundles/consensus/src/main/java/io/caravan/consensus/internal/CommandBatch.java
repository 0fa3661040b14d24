package io.caravan.consensus.internal;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

/**
 * Several byte arrays framed as one: a 4-byte count, then each as a 4-byte length and its bytes (big-endian). The
 * commands of a batch entry ({@link StampedCommand#encodeBatch}) and the results of applying them travel this way.
 */
final class CommandBatch {
    private CommandBatch() {
    }

    /** The framed bytes of {@code parts}, after {@code prefix} leading bytes left zero for the caller. */
    static byte[] encode(int prefix, List<byte[]> parts) {
        int size = prefix + Integer.BYTES;
        for (byte[] p : parts) {
            size += Integer.BYTES + p.length;
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        out.position(prefix);
        out.putInt(parts.size());
        for (byte[] p : parts) {
            out.putInt(p.length).put(p);
        }
        return out.array();
    }

    static List<byte[]> decode(ByteString framed) {
        ByteBuffer in = framed.asReadOnlyByteBuffer();
        try {
            int n = in.getInt();
            if (n < 0) {
                throw new IllegalStateException("negative count " + n);
            }
            List<byte[]> parts = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                byte[] p = new byte[in.getInt()];
                in.get(p);
                parts.add(p);
            }
            if (in.hasRemaining()) {
                throw new IllegalStateException(in.remaining() + " trailing bytes");
            }
            return parts;
        } catch (RuntimeException e) {
            // Only this code writes batches; a malformed one means a corrupt log, which must not be skipped.
            throw new IllegalStateException("malformed command batch of " + framed.size() + " bytes: " + e, e);
        }
    }
}
