package io.caravan.driver.executor.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Host programs by absolute path (a task's own PATH, which the wrapper runs with, may not have them) and whether
 * the agent is root.
 */
final class HostTools {
    private static final List<Path> BIN_DIRS = List.of(Path.of("/usr/bin"), Path.of("/bin"), Path.of("/usr/sbin"),
            Path.of("/sbin"));

    private HostTools() {
    }

    static Optional<String> find(String tool) {
        return BIN_DIRS.stream().map(dir -> dir.resolve(tool)).filter(Files::isExecutable).findFirst()
                .map(Path::toString);
    }

    static String require(String tool) {
        return find(tool).orElseThrow(() -> new IllegalStateException(tool + " not found in " + BIN_DIRS));
    }

    /** The effective uid, second on the {@code Uid:} line of {@code /proc/self/status}, is 0. */
    static boolean runningAsRoot() {
        try {
            return Files.readAllLines(Path.of("/proc/self/status")).stream()
                    .filter(line -> line.startsWith("Uid:"))
                    .anyMatch(line -> "0".equals(line.split("\\s+")[2]));
        } catch (IOException e) {
            return false;
        }
    }
}
