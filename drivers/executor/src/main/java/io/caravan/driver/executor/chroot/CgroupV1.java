package io.caravan.driver.executor.chroot;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import io.caravan.plugin.api.driver.DriverException;
import io.caravan.plugin.api.driver.TaskId;

/**
 * A task's cgroups in the v1 {@code memory} and {@code cpu} hierarchies, named {@code <parent>/<alloc>.<task>}
 * so that recovery finds them from the task id alone. Limits as Nomad sets them: {@code memory_max}, if set, is the
 * hard limit and {@code memory} the soft one; otherwise {@code memory} is the hard limit; CPU shares are the MHz.
 */
public final class CgroupV1 {
    public static final Path ROOT = Path.of("/sys/fs/cgroup");
    private static final long MIN_CPU_SHARES = 2;
    private static final long MB = 1024L * 1024;
    private static final long REMOVE_WAIT_NANOS = 2_000_000_000L;

    private final Path memory;
    private final Path cpu;

    public CgroupV1(String parent, TaskId id) {
        String name = (id.allocId() + "." + id.taskName()).replace('/', '_');
        this.memory = ROOT.resolve("memory").resolve(parent).resolve(name);
        this.cpu = ROOT.resolve("cpu").resolve(parent).resolve(name);
    }

    /** True if this host has the v1 memory and cpu controllers mounted where we expect them. */
    public static boolean available() {
        return Files.isRegularFile(ROOT.resolve("memory/memory.limit_in_bytes"))
                && Files.isRegularFile(ROOT.resolve("cpu/cpu.shares"));
    }

    public List<Path> dirs() {
        return List.of(memory, cpu);
    }

    public void create(long memoryMb, long memoryMaxMb, long cpuMhz) throws DriverException {
        try {
            Files.createDirectories(memory);
            Files.createDirectories(cpu);
            if (memoryMaxMb > 0) {
                write(memory.resolve("memory.limit_in_bytes"), memoryMaxMb * MB);
                write(memory.resolve("memory.soft_limit_in_bytes"), memoryMb * MB);
            } else if (memoryMb > 0) {
                write(memory.resolve("memory.limit_in_bytes"), memoryMb * MB);
            }
            if (cpuMhz > 0) {
                write(cpu.resolve("cpu.shares"), Math.max(MIN_CPU_SHARES, cpuMhz));
            }
        } catch (IOException e) {
            throw new DriverException("cannot set up cgroups " + dirs() + ": " + e.getMessage(), e);
        }
    }

    /** The kernel's count of OOM kills in the memory cgroup ({@code oom_kill}, Linux 4.13+). */
    public boolean oomKilled() {
        try {
            return Files.readAllLines(memory.resolve("memory.oom_control")).stream()
                    .filter(line -> line.startsWith("oom_kill "))
                    .anyMatch(line -> Long.parseLong(line.substring("oom_kill ".length()).trim()) > 0);
        } catch (IOException | NumberFormatException e) {
            return false;
        }
    }

    /**
     * Removes the cgroups. They must be empty: the task's namespace is gone by now, but its last processes may
     * still be on their way out, so this retries for a moment.
     */
    public void remove() {
        long deadline = System.nanoTime() + REMOVE_WAIT_NANOS;
        for (Path dir : dirs()) {
            while (!removed(dir) && System.nanoTime() - deadline < 0) {
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private static boolean removed(Path dir) {
        try {
            Files.deleteIfExists(dir);
            return true;
        } catch (IOException e) {
            return false; // busy: an empty leftover cgroup would cost nothing, but we try again
        }
    }

    private static void write(Path file, long value) throws IOException {
        Files.writeString(file, Long.toString(value));
    }
}
