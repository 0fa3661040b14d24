package io.caravan.client.http.internal;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

import io.caravan.client.http.internal.ClientAllocRoutes.CpuStats;
import io.caravan.client.http.internal.ClientAllocRoutes.MemoryStats;
import io.caravan.client.http.internal.ClientAllocRoutes.ResourceUsage;

/**
 * Resource usage of task processes and of the host: a task in a cgroup of its own (exec) from its cgroup
 * ({@link CgroupFs}), its processes and the host from {@link ProcFs}. CPU percentages need two readings: a
 * reading younger than {@link #BASELINE_MAX_AGE_NANOS} from an earlier call serves as the first, else the caller
 * waits {@link #BASELINE_NANOS} for a fresh one (Nomad's client samples in the background instead; asking is rare
 * enough here that a short wait is cheaper than a sampling thread per task).
 */
final class UsageSampler {
    static final long BASELINE_NANOS = 100_000_000L;
    static final long BASELINE_MAX_AGE_NANOS = 10_000_000_000L;
    /** Nomad's names for what a process-based measurement covers. */
    static final List<String> MEMORY_MEASURED = List.of("RSS", "Swap");
    static final List<String> CPU_MEASURED = List.of("System Mode", "User Mode", "Percent");

    /** Waits between two readings ({@code Thread.sleep}; tests change the files instead). */
    interface Sleeper {
        void sleep(long nanos) throws Exception;
    }

    private record Reading(long at, long user, long system) {}

    private record CgroupReading(long at, CgroupFs.Usage usage) {}

    private final ProcFs proc;
    private final CgroupFs cgroups;
    private final Map<String, CgroupReading> cgroupReadings = new ConcurrentHashMap<>();
    private final LongSupplier nanos;
    private final Sleeper sleeper;
    private final Map<Long, Reading> processReadings = new ConcurrentHashMap<>();
    private final Map<String, Long> maxUsage = new ConcurrentHashMap<>();
    private volatile Map<String, ProcFs.CpuTimes> hostReading = Map.of();
    private volatile long hostReadingAt;

    UsageSampler(ProcFs proc, CgroupFs cgroups, LongSupplier nanos, Sleeper sleeper) {
        this.proc = proc;
        this.cgroups = cgroups;
        this.nanos = nanos;
        this.sleeper = sleeper;
    }

    /**
     * Makes sure every task (key: its processes) has a recent first reading, of its cgroup or of each process,
     * waiting once if one has none.
     */
    void baseline(Map<String, List<Long>> tasks) {
        long now = nanos.getAsLong();
        boolean missing = false;
        List<Long> pids = new ArrayList<>();
        for (Map.Entry<String, List<Long>> task : tasks.entrySet()) {
            pids.addAll(task.getValue());
            if (task.getValue().isEmpty()) {
                continue;
            }
            CgroupReading r = cgroupReadings.get(task.getKey());
            if (r == null || now - r.at() > BASELINE_MAX_AGE_NANOS || now - r.at() < BASELINE_NANOS / 2) {
                Optional<CgroupFs.Usage> usage = cgroups.task(task.getValue().get(0));
                if (usage.isPresent()) {
                    missing = true;
                    cgroupReadings.put(task.getKey(), new CgroupReading(now, usage.get()));
                }
            }
        }
        for (long pid : pids) {
            Reading r = processReadings.get(pid);
            if (r == null || now - r.at() > BASELINE_MAX_AGE_NANOS || now - r.at() < BASELINE_NANOS / 2) {
                missing = true;
                proc.process(pid).ifPresent(u -> processReadings.put(pid, new Reading(now, u.userTicks(),
                        u.systemTicks())));
            }
        }
        if (missing) {
            pause();
        }
    }

    /** The usage of each process and of them all, as Nomad's {@code ResourceUsage}; {@code key} names the task. */
    TaskUsage task(String key, List<Long> pids, double mhz) {
        long now = nanos.getAsLong();
        Map<String, ResourceUsage> byPid = new LinkedHashMap<>();
        double user = 0;
        double system = 0;
        long rss = 0;
        long swap = 0;
        for (long pid : pids) {
            Optional<ProcFs.ProcessUsage> usage = proc.process(pid);
            if (usage.isEmpty()) {
                continue;
            }
            ProcFs.ProcessUsage u = usage.get();
            Reading before = processReadings.put(pid, new Reading(now, u.userTicks(), u.systemTicks()));
            double seconds = before == null ? 0 : (now - before.at()) / 1e9;
            double pu = seconds <= 0 ? 0 : percent(u.userTicks() - before.user(), seconds);
            double ps = seconds <= 0 ? 0 : percent(u.systemTicks() - before.system(), seconds);
            user += pu;
            system += ps;
            rss += u.rssBytes();
            swap += u.swapBytes();
            byPid.put(Long.toString(pid), usage(pu, ps, u.rssBytes(), u.swapBytes(), u.rssBytes(), mhz));
        }
        Optional<CgroupFs.Usage> cgroup = cgroups.task(pids.get(0));
        if (cgroup.isPresent()) {
            return new TaskUsage(fromCgroup(key, now, cgroup.get(), user, system, mhz), byPid);
        }
        long max = maxUsage.merge(key, rss, Math::max);
        return new TaskUsage(usage(user, system, rss, swap, max, mhz), byPid);
    }

    /**
     * A task's usage from its cgroup: CPU shares between this reading and the last one (or, without CPU accounting,
     * its processes' {@code user}/{@code system} percentages; throttling whenever its {@code cpu} cgroup is its own),
     * memory as the cgroup counts it.
     */
    private ResourceUsage fromCgroup(String key, long now, CgroupFs.Usage u, double procUser, double procSystem,
                                     double mhz) {
        CgroupReading before = cgroupReadings.put(key, new CgroupReading(now, u));
        double seconds = before == null ? 0 : (now - before.at()) / 1e9;
        List<String> cpuMeasured = u.throttling() ? CgroupFs.CPU_MEASURED : CPU_MEASURED;
        double user = procUser;
        double system = procSystem;
        double percent = procUser + procSystem;
        if (u.cpu()) {
            user = seconds <= 0 ? 0 : share(u.userNanos() - before.usage().userNanos(), seconds);
            system = seconds <= 0 ? 0 : share(u.systemNanos() - before.usage().systemNanos(), seconds);
            percent = seconds <= 0 ? 0 : share(u.usageNanos() - before.usage().usageNanos(), seconds);
        }
        long max = u.memoryMeasured().contains("Max Usage") ? u.maxUsage() : maxUsage.merge(key, u.usage(), Math::max);
        return new ResourceUsage(new MemoryStats(u.rss(), u.cache(), u.swap(), u.mappedFile(), u.usage(), max, 0, 0,
                u.memoryMeasured()), new CpuStats(system, user, percent / 100 * mhz, u.throttledPeriods(),
                u.throttledNanos(), percent, cpuMeasured), List.of());
    }

    private static double share(long nanos, double seconds) {
        return Math.max(0, 100.0 * nanos / 1e9 / seconds);
    }

    /** A task's usage and its processes'. */
    record TaskUsage(ResourceUsage total, Map<String, ResourceUsage> pids) {}

    /** Forgets readings of processes not in {@code live} and tasks not in {@code liveKeys}. */
    void retain(Collection<Long> live, Collection<String> liveKeys) {
        processReadings.keySet().retainAll(live);
        maxUsage.keySet().retainAll(liveKeys);
        cgroupReadings.keySet().retainAll(liveKeys);
    }

    /** Each CPU's busy share in percent by mode, between the last reading (or a fresh one) and now. */
    Map<String, double[]> hostCpus() throws IOException {
        long now = nanos.getAsLong();
        Map<String, ProcFs.CpuTimes> before = hostReading;
        if (before.isEmpty() || now - hostReadingAt > BASELINE_MAX_AGE_NANOS || now - hostReadingAt < BASELINE_NANOS / 2) {
            before = read();
            hostReadingAt = now;
            pause();
            now = nanos.getAsLong();
        }
        Map<String, ProcFs.CpuTimes> after = read();
        hostReading = after;
        hostReadingAt = now;
        Map<String, double[]> out = new LinkedHashMap<>();
        for (ProcFs.CpuTimes cpu : after.values()) {
            ProcFs.CpuTimes prior = before.get(cpu.name());
            long total = prior == null ? cpu.total() : cpu.total() - prior.total();
            if (total <= 0) {
                out.put(cpu.name(), new double[] {0, 0, 100, 0});
                continue;
            }
            double u = 100.0 * ((cpu.user() + cpu.nice()) - (prior == null ? 0 : prior.user() + prior.nice())) / total;
            double s = 100.0 * (cpu.system() + cpu.irq() + cpu.softirq()
                    - (prior == null ? 0 : prior.system() + prior.irq() + prior.softirq())) / total;
            double idle = 100.0 * (cpu.idleAll() - (prior == null ? 0 : prior.idleAll())) / total;
            out.put(cpu.name(), new double[] {u, s, idle, 100 - idle});
        }
        return out;
    }

    private Map<String, ProcFs.CpuTimes> read() throws IOException {
        Map<String, ProcFs.CpuTimes> out = new HashMap<>();
        for (ProcFs.CpuTimes cpu : proc.cpus()) {
            out.put(cpu.name(), cpu);
        }
        return out;
    }

    private static double percent(long ticks, double seconds) {
        return 100.0 * ticks / ProcFs.TICKS_PER_SECOND / seconds;
    }

    private static ResourceUsage usage(double user, double system, long rss, long swap, long max, double mhz) {
        double percent = user + system;
        return new ResourceUsage(new MemoryStats(rss, 0, swap, 0, rss, max, 0, 0, MEMORY_MEASURED),
                new CpuStats(system, user, percent / 100 * mhz, 0, 0, percent, CPU_MEASURED), List.of());
    }

    private void pause() {
        try {
            sleeper.sleep(BASELINE_NANOS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            throw new IllegalStateException("waiting between two readings failed", e);
        }
    }
}
