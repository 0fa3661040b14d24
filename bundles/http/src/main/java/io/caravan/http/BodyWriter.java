package io.caravan.http;

import java.io.IOException;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Where a {@link StreamingBody} writes. Writes never block: when the client reads slower than the producer writes,
 * {@link #ready()} is false and {@link #write(byte[])} declines, and the producer tries again later. Thread-safe.
 */
@ProviderType
public interface BodyWriter {

    /** Whether {@link #write(byte[])} would take bytes now. False once closed. */
    boolean ready();

    /**
     * Sends the bytes (flushed to the client, as far as the network lets), or declines when not {@link #ready()}.
     *
     * @return true when taken, false when the caller should retry the same bytes later
     * @throws IOException when the client went away or the writer is closed
     */
    boolean write(byte[] bytes) throws IOException;

    /** Ends the response (after any bytes still on their way). Idempotent. */
    void close();

    /** True once {@link #close()} was called or the client went away: the producer should stop. */
    boolean closed();
}
