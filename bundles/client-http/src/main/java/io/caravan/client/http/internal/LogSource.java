package io.caravan.client.http.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.caravan.api.CaravanException;

/**
 * A task's stdout or stderr across its rotated files, in the order the client writes them. Caravan's log rotator
 * copies and truncates: {@code <task>.<type>.0} is the live file, and each rotation copies it to the next archive
 * index ({@code .1}, {@code .2}, … — higher is newer) before truncating it, renaming a finished copy into place so
 * an archive is complete from the moment it exists. So the stream reads the archives by ascending index, then the
 * live file.
 *
 * <p>Following, a rotation shows as a new archive above the newest one seen: it holds what the live file held, so
 * the stream carries on in that archive at the same position, then in any later archives, then in the live file from
 * its start. The check for a new archive comes after each read of the live file (the rotator copies before it
 * truncates), so bytes read just before a rotation are never mistaken for bytes written after it. A live file that
 * shrinks with no new archive (truncated by someone else) is read again from the start, with {@code file truncated}.
 */
final class LogSource implements StreamSource {
    private static final String LOGS = "alloc/logs";

    private final AllocFs fs;
    private final Path logs;
    private final String task;
    private final String type;
    private final boolean follow;
    private final Pattern names;
    /** An archive index (&gt; 0), or 0 for the live file. */
    private int current;
    private long position;
    /** The newest archive that existed when the stream last moved to the live file. */
    private int newestArchiveSeen;
    private boolean atEnd;

    private LogSource(AllocFs fs, Path logs, String task, String type, boolean follow) {
        this.fs = fs;
        this.logs = logs;
        this.task = task;
        this.type = type;
        this.follow = follow;
        this.names = Pattern.compile(Pattern.quote(task + "." + type + ".") + "(\\d{1,9})");
    }

    /**
     * Positions a stream: with {@code origin} {@code start}, {@code offset} bytes from the start of the oldest file;
     * with {@code end}, {@code offset} bytes back from the end of the live file, across files (as Nomad does).
     *
     * @throws CaravanException 404 when the task has no such log
     */
    static LogSource open(AllocFs fs, String task, String type, boolean fromEnd, long offset, boolean follow)
            throws IOException {
        Path logs = fs.resolve(LOGS);
        LogSource source = new LogSource(fs, logs, task, type, follow);
        List<Integer> indexes = source.indexes();
        List<Integer> order = new ArrayList<>();
        for (int index : indexes) {
            if (index > 0) {
                order.add(index);
            }
        }
        source.newestArchiveSeen = order.isEmpty() ? 0 : order.get(order.size() - 1);
        if (indexes.contains(0)) {
            order.add(0);
        }
        if (order.isEmpty()) {
            throw CaravanException.notFound("log entry for task \"" + task + "\" and log type \"" + type
                    + "\" not found");
        }
        long[] sizes = new long[order.size()];
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = source.size(order.get(i));
        }
        int at;
        long position;
        if (fromEnd) {
            at = sizes.length - 1;
            long back = offset;
            while (back > sizes[at] && at > 0) {
                back -= sizes[at];
                at--;
            }
            position = Math.max(0, sizes[at] - back);
        } else {
            at = 0;
            long forward = offset;
            while (forward > sizes[at] && at < sizes.length - 1) {
                forward -= sizes[at];
                at++;
            }
            position = Math.min(forward, sizes[at]);
        }
        source.current = order.get(at);
        source.position = position;
        return source;
    }

    @Override
    public Piece read(int max) throws IOException {
        while (true) {
            if (current > 0) {
                Chunk chunk = readFile(current, max);
                if (chunk != null && chunk.data.length > 0) {
                    position += chunk.data.length;
                    return new Piece(label(current), position, chunk.data, null);
                }
                // The archive is finished (or was already removed by max_files): on to the next file.
                List<Integer> archives = archives();
                Integer next = archives.stream().filter(i -> i > current).findFirst().orElse(null);
                if (next != null) {
                    current = next;
                } else {
                    newestArchiveSeen = Math.max(current, archives.isEmpty() ? 0 : archives.get(archives.size() - 1));
                    current = 0;
                }
                position = 0;
                continue;
            }
            Chunk chunk = readFile(0, max);
            List<Integer> archives = archives();
            Integer rotated = archives.stream().filter(i -> i > newestArchiveSeen).findFirst().orElse(null);
            if (rotated != null) {
                current = rotated; // what was read may predate the copy or not: read it again from the archive
                continue;
            }
            if (chunk == null) {
                atEnd = true; // no live file (yet)
                return null;
            }
            if (chunk.data.length > 0) {
                atEnd = false;
                position += chunk.data.length;
                return new Piece(label(0), position, chunk.data, null);
            }
            if (chunk.size < position) {
                position = 0;
                return new Piece(label(0), 0, new byte[0], StreamFrame.TRUNCATED);
            }
            atEnd = true;
            return null;
        }
    }

    @Override
    public boolean done() {
        return !follow && atEnd && current == 0;
    }

    @Override
    public void close() {
        // files are opened per read
    }

    private record Chunk(long size, byte[] data) {}

    /** Up to {@code max} bytes of one log file at the current position; null when the file does not exist. */
    private Chunk readFile(int index, int max) throws IOException {
        try (SeekableByteChannel channel = fs.open(logs.resolve(name(index)))) {
            long size = channel.size();
            if (size <= position) {
                return new Chunk(size, new byte[0]);
            }
            ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(max, size - position));
            channel.position(position);
            int n = Math.max(0, channel.read(buffer));
            return new Chunk(size, Arrays.copyOf(buffer.array(), n));
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    private long size(int index) throws IOException {
        try (SeekableByteChannel channel = fs.open(logs.resolve(name(index)))) {
            return channel.size();
        } catch (NoSuchFileException e) {
            return 0;
        }
    }

    /** Indexes of this task's files of this type, ascending (0, the live file, first). */
    private List<Integer> indexes() throws IOException {
        List<Integer> out = new ArrayList<>();
        try (DirectoryStream<Path> dir = fs.openDir(logs)) {
            for (Path entry : dir) {
                Matcher m = names.matcher(entry.getFileName().toString());
                if (m.matches()) {
                    out.add(Integer.parseInt(m.group(1)));
                }
            }
        }
        out.sort(null);
        return out;
    }

    private List<Integer> archives() throws IOException {
        List<Integer> all = indexes();
        all.removeIf(i -> i == 0);
        return all;
    }

    private String name(int index) {
        return task + "." + type + "." + index;
    }

    private String label(int index) {
        return LOGS + "/" + name(index);
    }
}
