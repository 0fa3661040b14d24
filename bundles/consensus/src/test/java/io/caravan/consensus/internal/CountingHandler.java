package io.caravan.consensus.internal;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.caravan.consensus.BatchingCommandHandler;

/**
 * A counter-like handler: each command is an 8-byte number added to a running sum; the result is the new count. Its
 * checksum folds in every (index, timestamp, value), so two handlers agree only if they applied the same entries with
 * the same stamps. A command of {@link #POISON} throws, to test that a failed apply halts the server. It takes several
 * commands at one index, so submits to it are batched.
 */
final class CountingHandler implements BatchingCommandHandler {
    static final long POISON = -1;

    final Map<Long, Long> timestamps = new ConcurrentHashMap<>();   // index -> stamp, as seen by apply
    final boolean failOnPoison;
    volatile long count;
    volatile long sum;
    volatile long checksum;
    volatile long applyCalls;
    volatile long restoredFrom = -1;

    CountingHandler(boolean failOnPoison) {
        this.failOnPoison = failOnPoison;
    }

    static byte[] command(long value) {
        return ByteBuffer.allocate(Long.BYTES).putLong(0, value).array();
    }

    static long decode(byte[] bytes) {
        return ByteBuffer.wrap(bytes).getLong();
    }

    @Override
    public byte[] apply(long index, long timestampMillis, byte[] command) {
        long value = decode(command);
        if (value == POISON && failOnPoison) {
            throw new IllegalArgumentException("poison at " + index);
        }
        applyCalls++;
        count++;
        sum += value;
        checksum = checksum * 31 + (index ^ timestampMillis ^ value);
        timestamps.put(index, timestampMillis);
        return command(count);
    }

    @Override
    public void snapshot(OutputStream out) throws IOException {
        DataOutputStream data = new DataOutputStream(out);
        data.writeLong(count);
        data.writeLong(sum);
        data.writeLong(checksum);
        data.flush();
    }

    @Override
    public void restore(long index, InputStream in) throws IOException {
        DataInputStream data = new DataInputStream(in);
        try {
            long c = data.readLong();
            long s = data.readLong();
            long x = data.readLong();
            count = c;
            sum = s;
            checksum = x;
        } catch (EOFException empty) {
            count = 0;
            sum = 0;
            checksum = 0;
        }
        restoredFrom = index;
    }
}
