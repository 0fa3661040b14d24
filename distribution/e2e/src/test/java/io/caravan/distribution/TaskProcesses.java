package io.caravan.distribution;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Processes an agent's tasks left running, found through {@code /proc}: those whose working directory or command line
 * is under the agent's data directory (a task runs in its alloc dir, below it). Tests kill them as a last resort once
 * the agent is stopped, so that no {@code python3 -m http.server} or shell loop outlives its test.
 */
final class TaskProcesses {
    private TaskProcesses() {
    }

    /** The live processes under {@code root}, never this JVM nor its ancestors. */
    static List<ProcessHandle> under(Path root) {
        Path real = realPath(root);
        String prefix = real.toString() + "/";
        Set<Long> spared = Stream.iterate(Optional.of(ProcessHandle.current()), Optional::isPresent,
                p -> p.get().parent()).map(p -> p.get().pid()).collect(Collectors.toSet());
        List<ProcessHandle> found = new ArrayList<>();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            procs.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit)).forEach(p -> {
                long pid = Long.parseLong(p.getFileName().toString());
                if (spared.contains(pid)) {
                    return;
                }
                if (cwd(p).map(c -> (c + "/").startsWith(prefix)).orElse(false)
                        || cmdline(p).contains(prefix) || cmdline(p).contains(root + "/")) {
                    ProcessHandle.of(pid).filter(ProcessHandle::isAlive).ifPresent(found::add);
                }
            });
        } catch (IOException e) {
            return List.of();   // no /proc: nothing to find
        }
        return found;
    }

    /**
     * Kills (SIGKILL) every process under {@code root} and its descendants, reporting each on standard error: a
     * process found here is a leak the agent should have stopped. The result is how many were killed.
     */
    static int killUnder(Path root) {
        List<ProcessHandle> found = under(root);
        for (ProcessHandle p : found) {
            System.err.println("killing a task process left running under " + root + ": " + p.pid() + " "
                    + p.info().commandLine().orElse("?"));
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        for (ProcessHandle p : found) {
            p.onExit().orTimeout(10, TimeUnit.SECONDS).exceptionally(e -> p).join();
        }
        return found.size();
    }

    private static Path realPath(Path root) {
        try {
            return root.toRealPath();
        } catch (IOException e) {
            return root.toAbsolutePath().normalize();
        }
    }

    private static Optional<String> cwd(Path proc) {
        try {
            return Optional.of(Files.readSymbolicLink(proc.resolve("cwd")).toString());
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return Optional.empty();   // another user's process, or gone
        }
    }

    private static String cmdline(Path proc) {
        try {
            return new String(Files.readAllBytes(proc.resolve("cmdline")), StandardCharsets.UTF_8).replace('\0', ' ');
        } catch (IOException e) {
            return "";
        }
    }
}
