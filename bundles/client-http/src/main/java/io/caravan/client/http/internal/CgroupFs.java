package io.caravan.client.http.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A task's usage read from its cgroup, v1 or v2 (roots given for tests, with files in the kernel's formats). The
 * cgroup is found from the task's process ({@code /proc/<pid>/cgroup}); it counts only when it is the task's own:
 * not the client's ({@code /proc/self/cgroup}) and not the root, which is where a raw_exec task stays (its usage then
 * comes from {@code /proc}). The exec driver puts each task in {@code memory} and {@code cpu} cgroups of its own.
 */
final class CgroupFs {
    /** Nomad's names for what a cgroup measurement covers. */
    static final List<String> CPU_MEASURED = List.of("System Mode", "User Mode", "Throttled Periods",
            "Throttled Time", "Percent");
    static final List<String> MEMORY_V1_MEASURED = List.of("RSS", "Cache", "Swap", "Usage", "Max Usage");
    static final List<String> MEMORY_V2_MEASURED = List.of("RSS", "Cache", "Swap", "Usage");

    private final Path cgroups;
    private final Path proc;

    CgroupFs(Path cgroups, Path proc) {
        this.cgroups = cgroups;
        this.proc = proc;
    }

    /**
     * A cgroup reading. CPU times are cumulative nanoseconds ({@code cpu} false: no CPU accounting found, e.g. a v1
     * {@code cpuacct} hierarchy the task is not in); memory in bytes, {@code memoryMeasured} naming what was read.
     */
    record Usage(boolean cpu, long usageNanos, long userNanos, long systemNanos, boolean throttling,
                 long throttledPeriods, long throttledNanos, long rss, long cache, long swap, long mappedFile, long usage, long maxUsage,
                 List<String> memoryMeasured) {}

    /** The usage of the task whose process is {@code pid}; empty when it has no cgroup of its own, or is gone. */
    Optional<Usage> task(long pid) {
        Map<String, String> mine = membership(proc.resolve("self/cgroup"));
        Map<String, String> its = membership(proc.resolve(Long.toString(pid)).resolve("cgroup"));
        try {
            if (its.containsKey("memory")) {
                String path = its.get("memory");
                if (own(path, mine.get("memory"))) {
                    return Optional.of(v1(its, mine));
                }
            } else if (its.containsKey("")) {
                String path = its.get("");
                if (own(path, mine.get(""))) {
                    return Optional.of(v2(dir(path)));
                }
            }
        } catch (IOException | RuntimeException e) {
            return Optional.empty();   // the cgroup went away with the task
        }
        return Optional.empty();
    }

    private static boolean own(String path, String clients) {
        return path != null && !path.equals("/") && !path.equals(clients);
    }

    /** {@code controller -> path} from a {@code /proc/<pid>/cgroup} file; v2's unified line under "". */
    private static Map<String, String> membership(Path file) {
        Map<String, String> out = new HashMap<>();
        try {
            for (String line : Files.readAllLines(file)) {
                String[] f = line.split(":", 3);
                if (f.length < 3) {
                    continue;
                }
                if (f[1].isEmpty()) {
                    out.put("", f[2]);
                }
                for (String controller : f[1].split(",")) {
                    if (!controller.isEmpty()) {
                        out.put(controller, f[2]);
                        out.put("mount:" + controller, f[1]);
                    }
                }
            }
        } catch (IOException e) {
            return Map.of();
        }
        return out;
    }

    private Path dir(String path) {
        return cgroups.resolve(path.startsWith("/") ? path.substring(1) : path);
    }

    /**
     * A v1 controller's directory, when the task has a cgroup of its own in that hierarchy (the exec driver makes
     * {@code memory} and {@code cpu} ones; where {@code cpuacct} is a hierarchy apart, the task stays in the
     * client's): under its own mount ({@code cpu,cpuacct} co-mounted, or {@code cpuacct}).
     */
    private Optional<Path> v1Dir(Map<String, String> its, Map<String, String> mine, String controller) {
        String path = its.get(controller);
        if (!own(path, mine.get(controller))) {
            return Optional.empty();
        }
        String rel = path.startsWith("/") ? path.substring(1) : path;
        for (String mount : List.of(its.get("mount:" + controller), controller)) {
            Path dir = cgroups.resolve(mount).resolve(rel);
            if (Files.isDirectory(dir)) {
                return Optional.of(dir);
            }
        }
        return Optional.empty();
    }

    private Usage v1(Map<String, String> its, Map<String, String> mine) throws IOException {
        Path memory = v1Dir(its, mine, "memory").orElseThrow(() -> new IOException("no memory cgroup"));
        Map<String, Long> stat = keyed(memory.resolve("memory.stat"));
        List<String> measured = new ArrayList<>(List.of("RSS", "Cache", "Usage", "Max Usage"));
        if (stat.containsKey("swap")) {
            measured.add(2, "Swap");
        }
        long usage = number(memory.resolve("memory.usage_in_bytes"));
        long max = number(memory.resolve("memory.max_usage_in_bytes"));
        Optional<Path> acct = v1Dir(its, mine, "cpuacct").filter(d -> Files.exists(d.resolve("cpuacct.usage")));
        Optional<Path> cpu = v1Dir(its, mine, "cpu").filter(d -> Files.exists(d.resolve("cpu.stat")));
        long total = 0;
        long user = 0;
        long system = 0;
        if (acct.isPresent()) {
            total = number(acct.get().resolve("cpuacct.usage"));
            Map<String, Long> times = keyed(acct.get().resolve("cpuacct.stat"));
            long tick = 1_000_000_000L / ProcFs.TICKS_PER_SECOND;   // cpuacct.stat counts USER_HZ ticks
            user = times.getOrDefault("user", 0L) * tick;
            system = times.getOrDefault("system", 0L) * tick;
        }
        Map<String, Long> throttling = cpu.isPresent() ? keyed(cpu.get().resolve("cpu.stat")) : Map.of();
        return new Usage(acct.isPresent(), total, user, system, cpu.isPresent(), throttling.getOrDefault("nr_throttled", 0L),
                throttling.getOrDefault("throttled_time", 0L), stat.getOrDefault("rss", 0L),
                stat.getOrDefault("cache", 0L), stat.getOrDefault("swap", 0L), stat.getOrDefault("mapped_file", 0L),
                usage, max, List.copyOf(measured));
    }

    private Usage v2(Path dir) throws IOException {
        Map<String, Long> cpu = keyed(dir.resolve("cpu.stat"));
        Map<String, Long> stat = keyed(dir.resolve("memory.stat"));
        long usage = number(dir.resolve("memory.current"));
        Path swapFile = dir.resolve("memory.swap.current");
        Path peakFile = dir.resolve("memory.peak");   // Linux 5.19+
        List<String> measured = new ArrayList<>(List.of("RSS", "Cache", "Usage"));
        long swap = 0;
        if (Files.exists(swapFile)) {
            swap = number(swapFile);
            measured.add(2, "Swap");
        }
        long max = 0;
        if (Files.exists(peakFile)) {
            max = number(peakFile);
            measured.add("Max Usage");
        }
        long us = 1000;
        return new Usage(cpu.containsKey("usage_usec"), cpu.getOrDefault("usage_usec", 0L) * us,
                cpu.getOrDefault("user_usec", 0L) * us, cpu.getOrDefault("system_usec", 0L) * us,
                cpu.containsKey("nr_throttled"), cpu.getOrDefault("nr_throttled", 0L), cpu.getOrDefault("throttled_usec", 0L) * us,
                stat.getOrDefault("anon", 0L), stat.getOrDefault("file", 0L), swap,
                stat.getOrDefault("file_mapped", 0L), usage, max, List.copyOf(measured));
    }

    /** A flat-keyed file ({@code memory.stat}, {@code cpu.stat}): {@code key value} lines. */
    private static Map<String, Long> keyed(Path file) throws IOException {
        Map<String, Long> out = new HashMap<>();
        for (String line : Files.readAllLines(file)) {
            String[] f = line.trim().split("\\s+");
            if (f.length == 2) {
                try {
                    out.put(f[0], Long.parseLong(f[1]));
                } catch (NumberFormatException e) {
                    // not a counter
                }
            }
        }
        return out;
    }

    private static long number(Path file) throws IOException {
        String text = Files.readString(file).trim();
        return text.equals("max") ? 0 : Long.parseLong(text);
    }
}
