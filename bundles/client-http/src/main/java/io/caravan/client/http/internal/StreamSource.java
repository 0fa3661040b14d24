package io.caravan.client.http.internal;

import java.io.IOException;

/** What a {@link FileStream} reads from: one file, or a task's rotated logs. Used by one thread at a time. */
interface StreamSource extends AutoCloseable {

    /** A piece of a file: the bytes read, the position after them, and an event that came before them. */
    record Piece(String file, long offset, byte[] data, String event) {}

    /** The next piece, at most {@code max} bytes, or {@code null} when there is nothing new for now. */
    Piece read(int max) throws IOException;

    /** True when nothing more will come: not following and at the end, or the file was deleted. */
    boolean done();

    @Override
    void close();
}
