package io.caravan.client.http.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * One file from an offset, up to a limit, optionally followed as it grows. The file is opened once (through
 * {@link AllocFs#open}, so it stays the file that was checked); a file that shrinks below the position is reported
 * {@code file truncated} and read again from the start, one that disappears ends the stream with {@code file deleted}.
 */
final class FileSource implements StreamSource {
    private final AllocFs fs;
    private final Path real;
    private final String name;
    private final boolean follow;
    private long position;
    private long remaining;
    private SeekableByteChannel channel;
    private boolean atEnd;
    private boolean deleted;
    /** Whether the position was ever within the file; only then does a smaller file mean it was truncated. */
    private boolean anchored;

    /** @param limit bytes to read at most, 0 for no limit */
    FileSource(AllocFs fs, Path real, long offset, long limit, boolean follow) {
        this.fs = fs;
        this.real = real;
        this.name = fs.relative(real);
        this.follow = follow;
        this.position = offset;
        this.remaining = limit > 0 ? limit : Long.MAX_VALUE;
    }

    @Override
    public Piece read(int max) throws IOException {
        if (deleted || remaining <= 0) {
            return null;
        }
        if (channel == null) {
            channel = fs.open(real);
        }
        long size = channel.size();
        if (!anchored) {
            if (size < position) {
                atEnd = true; // an offset past the end: nothing until the file grows that far
                return null;
            }
            anchored = true;
        }
        if (size < position) {
            position = 0;
            return new Piece(name, 0, new byte[0], StreamFrame.TRUNCATED);
        }
        int want = (int) Math.min(max, remaining);
        ByteBuffer buffer = ByteBuffer.allocate(want);
        channel.position(position);
        int n = channel.read(buffer);
        if (n <= 0) {
            atEnd = true;
            if (follow && !Files.exists(real, LinkOption.NOFOLLOW_LINKS)) {
                deleted = true;
                return new Piece(name, position, new byte[0], StreamFrame.DELETED);
            }
            return null;
        }
        atEnd = false;
        position += n;
        remaining -= n;
        return new Piece(name, position, Arrays.copyOf(buffer.array(), n), null);
    }

    @Override
    public boolean done() {
        return deleted || remaining <= 0 || (!follow && atEnd);
    }

    @Override
    public void close() {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException e) {
                // nothing to do
            }
            channel = null;
        }
    }
}
