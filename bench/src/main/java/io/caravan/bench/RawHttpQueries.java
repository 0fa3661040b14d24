package io.caravan.bench;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * A minimal HTTP/1.1 GET client for many concurrent long-polls: one thread, one selector, one connection per
 * request ({@code Connection: close}), response complete at Content-Length, end of chunked body, or EOF. It exists
 * because {@code java.net.http.HttpClient} spends ~1 ms of CPU per response with 10,000 connections open, so on a
 * 2-core machine the harness, not the agent, would set the wake-all time.
 */
final class RawHttpQueries implements Runnable {
    /** Called once per request, on the selector thread. status -1 and error set when there was no response. */
    interface Done {
        void done(int q, int status, long nomadIndex, String body, String error);
    }

    private final InetSocketAddress address;
    private final byte[] request;
    private final int count;
    private final int batch;
    private final long batchPauseNanos;
    private final Done done;
    private final long deadlineNanos;
    private volatile boolean stop;

    private static final class Conn {
        final int q;
        final ByteBuffer out;
        final ByteArrayOutputStream in = new ByteArrayOutputStream(2048);

        Conn(int q, byte[] request) {
            this.q = q;
            this.out = ByteBuffer.wrap(request);
        }
    }

    RawHttpQueries(int port, String pathAndQuery, int count, int batch, long batchPauseMs, long maxSeconds,
            Done done) {
        this.address = new InetSocketAddress("127.0.0.1", port);
        this.request = ("GET " + pathAndQuery + " HTTP/1.1\r\nHost: 127.0.0.1:" + port
                + "\r\nConnection: close\r\nAccept: application/json\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        this.count = count;
        this.batch = batch;
        this.batchPauseNanos = TimeUnit.MILLISECONDS.toNanos(batchPauseMs);
        this.done = done;
        this.deadlineNanos = System.nanoTime() + TimeUnit.SECONDS.toNanos(maxSeconds);
    }

    /** Ends the loop and closes every connection still open (at the next select, within 10 ms). */
    void stop() {
        stop = true;
    }

    @Override
    public void run() {
        ByteBuffer read = ByteBuffer.allocateDirect(64 * 1024);
        int opened = 0;
        int finished = 0;
        long nextBatch = System.nanoTime();
        try (Selector selector = Selector.open()) {
            while (!stop && finished < count && System.nanoTime() < deadlineNanos) {
                if (opened < count && System.nanoTime() >= nextBatch) {
                    for (int i = 0; i < batch && opened < count; i++, opened++) {
                        try {
                            SocketChannel ch = SocketChannel.open();
                            ch.configureBlocking(false);
                            ch.connect(address);
                            ch.register(selector, SelectionKey.OP_CONNECT, new Conn(opened, request));
                        } catch (IOException e) {
                            finished++;
                            done.done(opened, -1, -1, null, "connect: " + e);
                        }
                    }
                    nextBatch = System.nanoTime() + batchPauseNanos;
                }
                selector.select(10);
                for (SelectionKey key : selector.selectedKeys()) {
                    Conn c = (Conn) key.attachment();
                    SocketChannel ch = (SocketChannel) key.channel();
                    try {
                        if (key.isConnectable()) {
                            ch.finishConnect();
                            ch.write(c.out);
                            key.interestOps(c.out.hasRemaining() ? SelectionKey.OP_WRITE : SelectionKey.OP_READ);
                        } else if (key.isWritable()) {
                            ch.write(c.out);
                            if (!c.out.hasRemaining()) {
                                key.interestOps(SelectionKey.OP_READ);
                            }
                        } else if (key.isReadable()) {
                            read.clear();
                            int n = ch.read(read);
                            if (n > 0) {
                                read.flip();
                                byte[] b = new byte[n];
                                read.get(b);
                                c.in.write(b, 0, n);
                            }
                            String complete = complete(c.in.toByteArray(), n < 0);
                            if (complete != null) {
                                key.cancel();
                                ch.close();
                                finished++;
                                report(c.q, c.in.toByteArray(), complete);
                            }
                        }
                    } catch (IOException e) {
                        key.cancel();
                        closeQuietly(ch);
                        finished++;
                        done.done(c.q, -1, -1, null, e.toString());
                    }
                }
                selector.selectedKeys().clear();
            }
            for (SelectionKey key : selector.keys()) {
                closeQuietly((SocketChannel) key.channel());
            }
        } catch (IOException e) {
            System.err.println("raw client: " + e);
        }
    }

    /** null while more is expected; "" when complete; an error text when the response cannot complete. */
    private static String complete(byte[] data, boolean eof) {
        String s = new String(data, StandardCharsets.ISO_8859_1);
        int h = s.indexOf("\r\n\r\n");
        if (h < 0) {
            return eof ? "connection closed before the headers ended" : null;
        }
        String head = s.substring(0, h).toLowerCase(Locale.ROOT);
        int bodyLen = s.length() - h - 4;
        int cl = head.indexOf("\r\ncontent-length:");
        if (cl >= 0) {
            int end = head.indexOf("\r\n", cl + 2);
            long len = Long.parseLong(head.substring(cl + 17, end < 0 ? head.length() : end).trim());
            return bodyLen >= len ? "" : eof ? "connection closed after " + bodyLen + " of " + len + " bytes" : null;
        }
        if (head.contains("\r\ntransfer-encoding: chunked")) {
            return s.endsWith("\r\n0\r\n\r\n") || s.endsWith("\r\n\r\n0\r\n\r\n") ? ""
                    : eof ? "connection closed inside a chunked body" : null;
        }
        return eof ? "" : null; // no length: the body ends with the connection
    }

    private void report(int q, byte[] data, String error) {
        if (!error.isEmpty()) {
            done.done(q, -1, -1, null, error);
            return;
        }
        String s = new String(data, StandardCharsets.UTF_8);
        int h = s.indexOf("\r\n\r\n");
        String head = s.substring(0, h);
        int status;
        try {
            status = Integer.parseInt(head.substring(9, 12));
        } catch (RuntimeException e) {
            done.done(q, -1, -1, null, "bad status line: " + head.lines().findFirst().orElse(""));
            return;
        }
        long index = -1;
        for (String line : head.split("\r\n")) {
            if (line.regionMatches(true, 0, "X-Nomad-Index:", 0, 14)) {
                index = Long.parseLong(line.substring(14).trim());
            }
        }
        done.done(q, status, index, s.substring(h + 4), null);
    }

    private static void closeQuietly(SocketChannel ch) {
        try {
            ch.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
