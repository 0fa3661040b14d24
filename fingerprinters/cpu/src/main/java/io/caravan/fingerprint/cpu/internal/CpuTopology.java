package io.caravan.fingerprint.cpu.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The host's logical cores as Nomad's numalib sees them: NUMA node, grade (a core sharing its physical core with a
 * sibling thread is a performance core, a lone thread an efficiency core), speed and whether Nomad's cgroup lets it
 * be used. Read from {@code /sys/devices/system}; when that gives no usable picture (no NUMA data, no cpufreq, as
 * in most VMs and containers) it falls back to {@code /proc/cpuinfo}: N performance cores on node 0 at the first
 * processor's speed.
 */
record CpuTopology(List<Core> cores) {

    record Core(int id, int node, boolean performance, long mhz, boolean usable) {
    }

    private static final String SYSTEM = "sys/devices/system/";

    static CpuTopology scan(Path root) throws IOException {
        CpuTopology sysfs = fromSysfs(root);
        return sysfs.usable() ? sysfs : fromCpuinfo(root);
    }

    /** Nomad's Fallback rule: nodes, cores, compute and usable cores must all be there. */
    private boolean usable() {
        return !cores.isEmpty() && totalMhz() > 0 && usableMhz() > 0 && usableCount() > 0;
    }

    private static CpuTopology fromSysfs(Path root) throws IOException {
        Optional<SortedSet<Integer>> online = readIds(root, SYSTEM + "cpu/online");
        Optional<SortedSet<Integer>> nodes = readIds(root, SYSTEM + "node/online");
        if (online.isEmpty() || nodes.isEmpty() || read(root, SYSTEM + "node/node" + nodes.get().first() + "/distance").isEmpty()) {
            return new CpuTopology(List.of());
        }
        Optional<SortedSet<Integer>> allowed = nomadCpuset(root);
        List<Core> cores = new ArrayList<>();
        for (int node : nodes.get()) {
            for (int id : readIds(root, SYSTEM + "node/node" + node + "/cpulist").orElse(new TreeSet<>())) {
                if (!online.get().contains(id)) {
                    continue;
                }
                String cpu = SYSTEM + "cpu/cpu" + id + "/";
                int siblings = readIds(root, cpu + "topology/thread_siblings_list").map(SortedSet::size).orElse(0);
                boolean usable = allowed.map(set -> set.contains(id)).orElse(true);
                cores.add(new Core(id, node, siblings > 1, sysfsMhz(root, cpu), usable));
            }
        }
        return new CpuTopology(cores);
    }

    /**
     * The nominal (base) speed where the driver tells it, else the maximum: acpi-cpufreq publishes
     * {@code acpi_cppc/nominal_freq} in MHz, intel_pstate {@code cpufreq/base_frequency} in kHz.
     */
    private static long sysfsMhz(Path root, String cpu) throws IOException {
        String driver = read(root, cpu + "cpufreq/scaling_driver").orElse("");
        long baseMhz = driver.equals("acpi-cpufreq")
                ? readLong(root, cpu + "acpi_cppc/nominal_freq")
                : readLong(root, cpu + "cpufreq/base_frequency") / 1000;
        return baseMhz > 0 ? baseMhz : readLong(root, cpu + "cpufreq/cpuinfo_max_freq") / 1000;
    }

    /** The cores Nomad's parent cgroup may use (v1 {@code cpuset/nomad}, v2 {@code nomad.slice}), if it exists. */
    private static Optional<SortedSet<Integer>> nomadCpuset(Path root) throws IOException {
        Optional<SortedSet<Integer>> v2 = readIds(root, "sys/fs/cgroup/nomad.slice/cpuset.cpus.effective");
        return v2.isPresent() ? v2 : readIds(root, "sys/fs/cgroup/cpuset/nomad/cpuset.effective_cpus");
    }

    /** gopsutil's view: one core per "processor" line, at cpu0's cpufreq maximum or else its "cpu MHz". */
    private static CpuTopology fromCpuinfo(Path root) throws IOException {
        List<String> cpuinfo = read(root, "proc/cpuinfo").map(text -> text.lines().toList()).orElse(List.of());
        long count = cpuinfo.stream().filter(line -> line.startsWith("processor")).count();
        long maxFreqMhz = readLong(root, SYSTEM + "cpu/cpu0/cpufreq/cpuinfo_max_freq") / 1000;
        long mhz = maxFreqMhz > 0 ? maxFreqMhz
                : cpuinfoValue(cpuinfo, "cpu MHz").map(v -> (long) Double.parseDouble(v)).orElse(0L);
        List<Core> cores = new ArrayList<>();
        for (int id = 0; id < count; id++) {
            cores.add(new Core(id, 0, true, mhz, true));
        }
        return new CpuTopology(cores);
    }

    static Optional<String> cpuinfoValue(List<String> cpuinfo, String key) {
        return cpuinfo.stream()
                .filter(line -> line.startsWith(key) && line.indexOf(':') > 0
                        && line.substring(0, line.indexOf(':')).trim().equals(key))
                .map(line -> line.substring(line.indexOf(':') + 1).trim())
                .filter(value -> !value.isEmpty())
                .findFirst();
    }

    int count() {
        return cores.size();
    }

    int usableCount() {
        return (int) cores.stream().filter(Core::usable).count();
    }

    long totalMhz() {
        return cores.stream().mapToLong(Core::mhz).sum();
    }

    long usableMhz() {
        return cores.stream().filter(Core::usable).mapToLong(Core::mhz).sum();
    }

    /** Nodes → their core ids, in order. */
    TreeMap<Integer, SortedSet<Integer>> coresByNode() {
        TreeMap<Integer, SortedSet<Integer>> byNode = new TreeMap<>();
        cores.forEach(core -> byNode.computeIfAbsent(core.node(), n -> new TreeSet<>()).add(core.id()));
        return byNode;
    }

    /** Kernel cpu list syntax, both ways: {@code 0-3,8,10-11}. */
    static SortedSet<Integer> parseIds(String list) {
        SortedSet<Integer> ids = new TreeSet<>();
        for (String part : list.trim().split(",")) {
            if (part.isBlank()) {
                continue;
            }
            int dash = part.indexOf('-');
            int low = Integer.parseInt(part.substring(0, dash < 0 ? part.length() : dash).trim());
            int high = dash < 0 ? low : Integer.parseInt(part.substring(dash + 1).trim());
            for (int id = low; id <= high; id++) {
                ids.add(id);
            }
        }
        return ids;
    }

    static String formatIds(SortedSet<Integer> ids) {
        StringBuilder out = new StringBuilder();
        Integer low = null;
        Integer high = null;
        for (int id : ids) {
            if (high != null && id == high + 1) {
                high = id;
                continue;
            }
            appendRange(out, low, high);
            low = id;
            high = id;
        }
        appendRange(out, low, high);
        return out.toString();
    }

    private static void appendRange(StringBuilder out, Integer low, Integer high) {
        if (low == null) {
            return;
        }
        if (out.length() > 0) {
            out.append(',');
        }
        out.append(low.equals(high) ? low.toString() : low + "-" + high);
    }

    private static Optional<String> read(Path root, String file) throws IOException {
        Path path = root.resolve(file);
        return Files.isReadable(path) && !Files.isDirectory(path)
                ? Optional.of(Files.readString(path).trim()) : Optional.empty();
    }

    private static Optional<SortedSet<Integer>> readIds(Path root, String file) throws IOException {
        return read(root, file).map(CpuTopology::parseIds);
    }

    /** 0 when absent or not a number (sysfs files may exist yet fail to read on some hypervisors). */
    private static long readLong(Path root, String file) {
        try {
            return read(root, file).map(Long::parseLong).orElse(0L);
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
    }
}
