package io.caravan.client.internal.hooks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;

import io.caravan.api.model.LogConfig;
import io.caravan.api.timer.SharedTimers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogRotatorTest {
    @TempDir
    Path logs;

    @Test
    void copyTruncateKeepsAtMostMaxFilesWithNewestArchiveHighest() throws Exception {
        Path live = LogRotator.liveFile(logs, "web", "stdout");
        LogRotator.Limits limits = new LogRotator.Limits(3, 10);
        for (int round = 1; round <= 4; round++) {
            Files.writeString(live, "round-" + round + "-0123456789\n", StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
            LogRotator.rotateIfNeeded(live, limits);
            assertEquals(0, Files.size(live), "live file truncated after round " + round);
        }
        // 4 archives were made (.1 .. .4); max_files=3 counts the live file, so only .3 and .4 remain.
        assertEquals(List.of(3, 4), LogRotator.archives(live));
        assertFalse(Files.exists(logs.resolve("web.stdout.1")));
        assertEquals("round-4-0123456789\n", Files.readString(logs.resolve("web.stdout.4")));
        assertTrue(Files.exists(live));
        try (var files = Files.list(logs)) {
            assertEquals(List.of(), files.filter(f -> f.getFileName().toString().endsWith(".partial")).toList(),
                    "archives are renamed into place whole; no partial copy is left behind");
        }
    }

    @Test
    void smallFilesAreLeftAloneAndStreamsAreIndependent() throws Exception {
        Path out = LogRotator.liveFile(logs, "web", "stdout");
        Path err = LogRotator.liveFile(logs, "web", "stderr");
        Files.writeString(out, "tiny");
        Files.writeString(err, "x".repeat(50));
        LogRotator.rotateIfNeeded(out, new LogRotator.Limits(2, 10));
        LogRotator.rotateIfNeeded(err, new LogRotator.Limits(2, 10));
        assertEquals("tiny", Files.readString(out));
        assertEquals(List.of(), LogRotator.archives(out));
        assertEquals(List.of(1), LogRotator.archives(err));
    }

    @Test
    void checksOnTheSharedTimerHandRotationsToAWorker() throws Exception {
        try (SharedTimers shared = new SharedTimers("test-timer", Duration.ofMillis(200))) {
            ScheduledExecutorService checks = shared.timer("log-checks");
            ScheduledExecutorService rotations = shared.worker("test-log-rotator");
            LogRotator rotator = new LogRotator(checks, rotations, Duration.ofMillis(20));
            Path live = LogRotator.liveFile(logs, "web", "stdout");
            Files.writeString(live, "x".repeat(50));
            rotator.watch(live, new LogRotator.Limits(3, 10));
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (LogRotator.archives(live).isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(List.of(1), LogRotator.archives(live), "the periodic check found it and the worker rotated it");
            assertEquals(0, Files.size(live));
            rotator.close();
            checks.shutdownNow();
            rotations.shutdownNow();
        }
    }

    @Test
    void limitsComeFromTheTaskLogsBlockWithNomadsDefaults() {
        assertEquals(new LogRotator.Limits(10, 10L * 1024 * 1024), LogRotator.Limits.of(null));
        assertEquals(new LogRotator.Limits(2, 3L * 1024 * 1024), LogRotator.Limits.of(new LogConfig(2, 3, false)));
    }
}
