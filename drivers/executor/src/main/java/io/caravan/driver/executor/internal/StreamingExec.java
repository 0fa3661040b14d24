package io.caravan.driver.executor.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.stream.Collectors;

import io.caravan.plugin.api.driver.DriverException;
import io.caravan.plugin.api.driver.ExecSession;

/**
 * {@code alloc exec} beside a task: the command gets the task's environment and working directory (read from
 * {@code /proc/<pid>}, so recovered tasks work too), with its standard streams as pipes to the caller.
 *
 * <p>A TTY comes without JNI from util-linux's {@code script -q -e -c CMD /dev/null}: {@code script} opens a
 * pseudo-terminal, runs the command on it through {@code sh -c}, copies our stdin pipe to the terminal and the
 * terminal to its stdout, and exits with the command's exit code ({@code -e}). A resize runs
 * {@code stty -F /dev/pts/N rows R cols C} on the terminal the command holds, which makes the kernel send it
 * SIGWINCH, as a real terminal's resize does.
 */
final class StreamingExec implements ExecSession {
    private static final Path PROC = Path.of("/proc");

    private final Process process;
    private final boolean tty;
    private final CompletableFuture<Integer> exit;
    private final String stty;

    private StreamingExec(Process process, boolean tty, String stty) {
        this.process = process;
        this.tty = tty;
        this.stty = stty;
        this.exit = process.onExit().thenApply(Process::exitValue);
    }

    /**
     * Starts {@code argv} in the environment and working directory of the running process {@code pid}.
     */
    static ExecSession start(long pid, List<String> argv, boolean tty)
            throws DriverException {
        if (argv.isEmpty()) {
            throw new DriverException("exec needs a command");
        }
        Path proc = PROC.resolve(Long.toString(pid));
        try {
            Path cwd = proc.resolve("cwd").toRealPath();
            TaskExec.awaitExec(proc);
            Map<String, String> env = TaskExec.environment(Files.readAllBytes(proc.resolve("environ")));
            List<String> command = argv;
            String stty = null;
            if (tty) {
                String script = HostTools.find("script").orElseThrow(
                        () -> new DriverException("exec with a TTY needs util-linux's script, not found on this host"));
                stty = HostTools.find("stty").orElseThrow(
                        () -> new DriverException("exec with a TTY needs stty, not found on this host"));
                command = List.of(script, "-q", "-e", "-c", "exec " + shellWords(argv), "/dev/null");
                env.putIfAbsent("TERM", "xterm");
                // script runs the command through $SHELL -c: a POSIX shell, whatever the task's SHELL says
                env.put("SHELL", "/bin/sh");
            }
            ProcessBuilder builder = new ProcessBuilder(command).directory(cwd.toFile());
            builder.environment().clear();
            builder.environment().putAll(env);
            return new StreamingExec(builder.start(), tty, stty);
        } catch (IOException e) {
            throw new DriverException("exec " + argv + " failed: " + e.getMessage(), e);
        }
    }

    /** The words quoted for {@code sh}: each in single quotes, a quote inside as {@code '\''}. */
    static String shellWords(List<String> argv) {
        return argv.stream().map(w -> "'" + w.replace("'", "'\\''") + "'").collect(Collectors.joining(" "));
    }

    @Override
    public OutputStream stdin() {
        return process.getOutputStream();
    }

    @Override
    public InputStream stdout() {
        return process.getInputStream();
    }

    @Override
    public InputStream stderr() {
        return process.getErrorStream();
    }

    @Override
    public boolean tty() {
        return tty;
    }

    /** Waits (≤ 2 s) for the command to hold its terminal, then sets the size there. */
    @Override
    public void resize(int rows, int columns) {
        if (!tty || rows <= 0 || columns <= 0) {
            return;
        }
        long deadline = System.nanoTime() + 2_000_000_000L;
        while (process.isAlive() && System.nanoTime() < deadline) {
            Optional<String> terminal = terminal();
            if (terminal.isPresent()) {
                try {
                    Process set = new ProcessBuilder(stty, "-F", terminal.get(), "rows", Integer.toString(rows),
                            "cols", Integer.toString(columns)).redirectErrorStream(true)
                            .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                    set.waitFor();
                } catch (IOException e) {
                    // the command went away meanwhile
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** The pseudo-terminal {@code script}'s child reads from ({@code /dev/pts/N}), once it runs. */
    private Optional<String> terminal() {
        List<Long> children = new ArrayList<>();
        process.children().forEach(c -> children.add(c.pid()));
        for (long child : children) {
            try {
                String target = Files.readSymbolicLink(PROC.resolve(Long.toString(child)).resolve("fd/0")).toString();
                if (target.startsWith("/dev/pts/")) {
                    return Optional.of(target);
                }
            } catch (IOException e) {
                // not there yet, or gone
            }
        }
        return Optional.empty();
    }

    @Override
    public CompletionStage<Integer> exitCode() {
        return exit;
    }

    @Override
    public void kill() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }
}
