package io.caravan.client.http.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import io.caravan.http.BodyWriter;

/** A client that keeps what it is sent; it can pretend to be slow ({@link #ready} false). */
final class CapturingWriter implements BodyWriter {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final CountDownLatch closed = new CountDownLatch(1);
    volatile boolean ready = true;

    @Override
    public boolean ready() {
        return ready && closed.getCount() > 0;
    }

    @Override
    public synchronized boolean write(byte[] data) throws IOException {
        if (closed.getCount() == 0) {
            throw new IOException("closed");
        }
        if (!ready) {
            return false;
        }
        bytes.write(data);
        return true;
    }

    @Override
    public void close() {
        closed.countDown();
    }

    @Override
    public boolean closed() {
        return closed.getCount() == 0;
    }

    synchronized byte[] bytes() {
        return bytes.toByteArray();
    }

    boolean awaitClose(Duration timeout) throws InterruptedException {
        return closed.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Waits (bounded) until what was received satisfies {@code condition}; returns whether it did. */
    boolean await(Duration timeout, Predicate<byte[]> condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (condition.test(bytes())) {
                return true;
            }
            Thread.sleep(20);
        }
        return condition.test(bytes());
    }
}
