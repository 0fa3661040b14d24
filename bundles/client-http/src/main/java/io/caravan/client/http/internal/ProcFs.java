package io.caravan.client.http.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What resource usage is read from in {@code /proc} (a root given for tests, with captured files): a process's CPU
 * ticks and memory, and the host's CPUs, memory, uptime and clock speed. Ticks are {@code USER_HZ}, which Linux
 * fixes at 100 on every architecture we run on.
 */
final class ProcFs {
    static final int TICKS_PER_SECOND = 100;

    private final Path root;

    ProcFs(Path root) {
        this.root = root;
    }

    Path root() {
        return root;
    }

    /** One process: CPU ticks in user and kernel mode, resident and swapped-out bytes. */
    record ProcessUsage(long userTicks, long systemTicks, long rssBytes, long swapBytes) {}

    /** One line of {@code /proc/stat}: a CPU's ticks by mode. */
    record CpuTimes(String name, long user, long nice, long system, long idle, long iowait, long irq, long softirq,
                    long steal) {
        long total() {
            return user + nice + system + idle + iowait + irq + softirq + steal;
        }

        long idleAll() {
            return idle + iowait;
        }
    }

    /** {@code /proc/meminfo} in bytes. */
    record Memory(long total, long available, long free) {}

    /** The process's usage, or empty when it is gone. */
    Optional<ProcessUsage> process(long pid) {
        Path dir = root.resolve(Long.toString(pid));
        try {
            String stat = Files.readString(dir.resolve("stat"));
            // Fields are counted after the command name's last ')': it may hold spaces and parentheses.
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
            long user = Long.parseLong(f[11]);      // field 14, utime
            long system = Long.parseLong(f[12]);    // field 15, stime
            long rss = 0;
            long swap = 0;
            for (String line : Files.readAllLines(dir.resolve("status"))) {
                if (line.startsWith("VmRSS:")) {
                    rss = kibibytes(line);
                } else if (line.startsWith("VmSwap:")) {
                    swap = kibibytes(line);
                }
            }
            return Optional.of(new ProcessUsage(user, system, rss, swap));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** The {@code cpuN} lines of {@code /proc/stat} (not the summed {@code cpu} line). */
    List<CpuTimes> cpus() throws IOException {
        List<CpuTimes> out = new ArrayList<>();
        for (String line : Files.readAllLines(root.resolve("stat"))) {
            if (line.startsWith("cpu") && line.length() > 3 && Character.isDigit(line.charAt(3))) {
                String[] f = line.trim().split("\\s+");
                out.add(new CpuTimes(f[0], at(f, 1), at(f, 2), at(f, 3), at(f, 4), at(f, 5), at(f, 6), at(f, 7),
                        at(f, 8)));
            }
        }
        return out;
    }

    Memory memory() throws IOException {
        long total = 0;
        long available = -1;
        long free = 0;
        for (String line : Files.readAllLines(root.resolve("meminfo"))) {
            if (line.startsWith("MemTotal:")) {
                total = kibibytes(line);
            } else if (line.startsWith("MemAvailable:")) {
                available = kibibytes(line);
            } else if (line.startsWith("MemFree:")) {
                free = kibibytes(line);
            }
        }
        return new Memory(total, available < 0 ? free : available, free);
    }

    /** Seconds since boot. */
    long uptime() throws IOException {
        String text = Files.readString(root.resolve("uptime")).trim();
        return (long) Double.parseDouble(text.substring(0, text.indexOf(' ') < 0 ? text.length() : text.indexOf(' ')));
    }

    /** The mean clock speed of the CPUs in MHz ({@code cpu MHz} lines), or 0 when {@code cpuinfo} has none. */
    double cpuMhz() {
        try {
            return Files.readAllLines(root.resolve("cpuinfo")).stream().filter(l -> l.startsWith("cpu MHz"))
                    .mapToDouble(l -> Double.parseDouble(l.substring(l.indexOf(':') + 1).trim())).average().orElse(0);
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
    }

    /** {@code (device, mount point)} of the mounted block devices, from {@code /proc/mounts}, each device once. */
    List<String[]> mounts() throws IOException {
        List<String[]> out = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        for (String line : Files.readAllLines(root.resolve("mounts"))) {
            String[] f = line.split("\\s+");
            if (f.length >= 2 && f[0].startsWith("/dev/") && !seen.contains(f[0])) {
                seen.add(f[0]);
                out.add(new String[] {f[0], f[1].replace("\\040", " ")});
            }
        }
        return out;
    }

    private static long at(String[] fields, int i) {
        return i < fields.length ? Long.parseLong(fields[i]) : 0;
    }

    /** {@code "VmRSS:   1234 kB"} in bytes. */
    private static long kibibytes(String line) {
        String[] f = line.substring(line.indexOf(':') + 1).trim().split("\\s+");
        return Long.parseLong(f[0]) * 1024;
    }
}
