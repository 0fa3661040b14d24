package io.caravan.client.internal.hooks;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.caravan.api.model.LogConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps task logs within {@code logs { max_files, max_file_size }} with one shared thread, by copy-truncate, so a
 * driver can keep appending to one path (across agent restarts, too).
 *
 * <p>The scheme: {@code <task>.<stream>.0} is the live file the driver appends to. When it grows past
 * {@code max_file_size}, its content is copied to the next archive index ({@code .1}, {@code .2}, … — a higher index
 * is newer) and the live file is truncated. Then the oldest archives (lowest indexes) are deleted until at most
 * {@code max_files} files remain, the live one included. Reading a stream in order is therefore: archives by
 * ascending index, then {@code .0}. As with any copy-truncate, output written between the copy and the truncate
 * (microseconds) can be lost.
 */
public final class LogRotator implements AutoCloseable {
    public static final Duration CHECK_INTERVAL = Duration.ofSeconds(1);

    private static final Logger LOG = LoggerFactory.getLogger(LogRotator.class);

    /** {@code max_files} (≥ 1) and {@code max_file_size} in bytes; Nomad's defaults are 10 files of 10 MB. */
    public record Limits(int maxFiles, long maxFileBytes) {
        public static final Limits DEFAULT = new Limits(10, 10L * 1024 * 1024);

        public static Limits of(LogConfig config) {
            if (config == null) {
                return DEFAULT;
            }
            int files = config.maxFiles() == null || config.maxFiles() < 1 ? DEFAULT.maxFiles() : config.maxFiles();
            long bytes = config.maxFileSizeMb() == null || config.maxFileSizeMb() < 1 ? DEFAULT.maxFileBytes()
                    : config.maxFileSizeMb() * 1024L * 1024L;
            return new Limits(files, bytes);
        }
    }

    private final Map<Path, Limits> watched = new ConcurrentHashMap<>();
    private final ScheduledFuture<?> checker;
    private final Executor rotations;
    /** Files whose rotation is handed off and not done yet. */
    private final Set<Path> rotating = ConcurrentHashMap.newKeySet();

    /** Checks and rotations on one thread. */
    public LogRotator(ScheduledExecutorService thread, Duration interval) {
        this(thread, thread, interval);
    }

    /**
     * @param timer runs the checks, a {@code stat} per watched file (fit for a shared timer)
     * @param rotations runs the rotations: copies of up to {@code max_file_size}, which may block on the disk
     */
    public LogRotator(ScheduledExecutorService timer, Executor rotations, Duration interval) {
        this.rotations = rotations;
        checker = timer.scheduleWithFixedDelay(this::checkAll, interval.toMillis(), interval.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    public static Path liveFile(Path logsDir, String task, String stream) {
        return logsDir.resolve(task + "." + stream + ".0");
    }

    public void watch(Path liveFile, Limits limits) {
        watched.put(liveFile, limits);
    }

    public void unwatch(Path liveFile) {
        watched.remove(liveFile);
    }

    public void checkAll() {
        watched.forEach((file, limits) -> {
            if (!oversized(file, limits) || !rotating.add(file)) {
                return;
            }
            try {
                rotations.execute(() -> {
                    try {
                        rotateIfNeeded(file, limits);
                    } catch (IOException e) {
                        LOG.atWarn().addKeyValue("file", file).addKeyValue("error", e.toString())
                                .log("log rotation failed");
                    } finally {
                        rotating.remove(file);
                    }
                });
            } catch (RejectedExecutionException stopping) {
                rotating.remove(file);
            }
        });
    }

    private static boolean oversized(Path live, Limits limits) {
        try {
            return Files.isRegularFile(live) && Files.size(live) > limits.maxFileBytes();
        } catch (IOException gone) {
            return false;   // removed meanwhile: nothing to rotate
        }
    }

    /** One check of one live file; public for tests. */
    public static void rotateIfNeeded(Path live, Limits limits) throws IOException {
        if (!Files.isRegularFile(live) || Files.size(live) <= limits.maxFileBytes()) {
            return;
        }
        List<Integer> archives = archives(live);
        int next = archives.isEmpty() ? 1 : archives.get(archives.size() - 1) + 1;
        Path archive = sibling(live, next);
        // Copied under a name no reader lists, then renamed: an archive never appears half-written.
        Path partial = archive.resolveSibling("." + archive.getFileName() + ".partial");
        Files.copy(live, partial, StandardCopyOption.REPLACE_EXISTING);
        Files.move(partial, archive, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        try (FileChannel channel = FileChannel.open(live, StandardOpenOption.WRITE)) {
            channel.truncate(0);
        }
        archives.add(next);
        // max_files counts the live file too.
        int excess = archives.size() + 1 - limits.maxFiles();
        for (int i = 0; i < excess && i < archives.size(); i++) {
            Files.deleteIfExists(sibling(live, archives.get(i)));
        }
    }

    /** Archive indexes of a live file, ascending. */
    static List<Integer> archives(Path live) throws IOException {
        String base = live.getFileName().toString();
        String prefix = base.substring(0, base.length() - 1); // "<task>.<stream>."
        Pattern indexed = Pattern.compile(Pattern.quote(prefix) + "(\\d+)");
        List<Integer> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(live.getParent())) {
            files.forEach(f -> {
                Matcher m = indexed.matcher(f.getFileName().toString());
                if (m.matches() && Integer.parseInt(m.group(1)) > 0) {
                    out.add(Integer.parseInt(m.group(1)));
                }
            });
        }
        out.sort(null);
        return out;
    }

    private static Path sibling(Path live, int index) {
        String base = live.getFileName().toString();
        return live.resolveSibling(base.substring(0, base.length() - 1) + index);
    }

    @Override
    public void close() {
        checker.cancel(false);
    }
}
