package io.caravan.driver.executor.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.caravan.plugin.api.driver.DriverException;
import io.caravan.plugin.api.driver.ExecResult;

/**
 * Runs a command beside a task, as Nomad's {@code alloc exec} does for drivers without isolation: same environment
 * and working directory, both read from {@code /proc/<pid>} so this works for recovered tasks too.
 */
final class TaskExec {
    private TaskExec() {
    }

    static ExecResult inEnvironmentOf(long pid, List<String> argv, Duration timeout) throws DriverException {
        if (argv.isEmpty()) {
            throw new DriverException("exec needs a command");
        }
        Path proc = Path.of("/proc", Long.toString(pid));
        Path out = null;
        Path err = null;
        try {
            awaitExec(proc);
            Path cwd = proc.resolve("cwd").toRealPath();
            Map<String, String> env = environment(Files.readAllBytes(proc.resolve("environ")));
            out = Files.createTempFile("caravan-exec", ".out");
            err = Files.createTempFile("caravan-exec", ".err");
            ProcessBuilder builder = new ProcessBuilder(argv).directory(cwd.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .redirectOutput(out.toFile()).redirectError(err.toFile());
            builder.environment().clear();
            builder.environment().putAll(env);
            Process process = builder.start();
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new DriverException("exec " + argv + " did not finish within " + timeout);
            }
            return new ExecResult(process.exitValue(), Files.readAllBytes(out), Files.readAllBytes(err));
        } catch (IOException e) {
            throw new DriverException("exec " + argv + " failed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DriverException("interrupted during exec " + argv, e);
        } finally {
            deleteQuietly(out);
            deleteQuietly(err);
        }
    }

    /**
     * Waits (at most a second) while {@code proc} is still the JVM's {@code jspawnhelper}: a task launched a moment ago
     * has its working directory already but not yet its own environment, which the exec would otherwise copy.
     */
    static void awaitExec(Path proc) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        while (System.nanoTime() < deadline) {
            try {
                if (!proc.resolve("exe").toRealPath().getFileName().toString().equals("jspawnhelper")) {
                    return;
                }
            } catch (IOException e) {
                return; // gone, or not ours to read: the caller's own read says so
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** {@code /proc/<pid>/environ}: NUL-terminated {@code KEY=value} entries. */
    static Map<String, String> environment(byte[] environ) {
        Map<String, String> env = new java.util.LinkedHashMap<>();
        for (String entry : new String(environ, StandardCharsets.UTF_8).split("\0")) {
            int eq = entry.indexOf('=');
            if (eq > 0) {
                env.put(entry.substring(0, eq), entry.substring(eq + 1));
            }
        }
        return env;
    }

    private static void deleteQuietly(Path file) {
        if (file != null) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                // temp dir cleanup will get it
            }
        }
    }
}
