package io.caravan.client.http.internal;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongSupplier;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.Access;
import io.caravan.api.acl.AclRule;
import io.caravan.api.acl.Capability;
import io.caravan.api.acl.Scope;
import io.caravan.client.ClientAllocs;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiRequest;
import io.caravan.http.ApiResponse;
import io.caravan.http.ApiRoutes;
import io.caravan.http.RouteTable;
import io.caravan.metrics.MetricSink;
import io.caravan.metrics.MetricSource;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * Nomad's client-side allocation endpoints: {@code restart}, {@code signal} and {@code gc} (handed to
 * {@link ClientAllocs}), {@code stats} (each running task's cgroup, or its processes in {@code /proc}), and the host's
 * {@code /v1/client/stats}; and, as a metric source, the running tasks' usage ({@link AllocMetrics}).
 */
@Component(service = {ApiRoutes.class, MetricSource.class})
public final class ClientAllocRoutes implements ApiRoutes, MetricSource {
    // ---- the endpoints: Nomad's names and the ACL rule each checks, in the allocation's namespace ---------------
    // This node's own allocations: served here at once, also while the servers have no leader.
    static final ApiEndpoint RESTART = ApiEndpoint.of("ClientAllocations.Restart",
            AclRule.namespace(Capability.ALLOC_LIFECYCLE)).agentLocal();
    static final ApiEndpoint SIGNAL = ApiEndpoint.of("ClientAllocations.Signal",
            AclRule.namespace(Capability.ALLOC_LIFECYCLE)).agentLocal();
    static final ApiEndpoint STATS = ApiEndpoint.of("ClientAllocations.Stats", AclRule.namespace(Capability.READ_JOB));
    static final ApiEndpoint GC = ApiEndpoint.of("ClientAllocations.GarbageCollect",
            AclRule.namespace(Capability.SUBMIT_JOB));
    static final ApiEndpoint CHECKS = ApiEndpoint.of("ClientAllocations.Checks",
            AclRule.namespace(Capability.READ_JOB));
    static final ApiEndpoint HOST_STATS = ApiEndpoint.of("ClientStats.Stats", AclRule.scope(Scope.NODE, Access.READ));

    private final ClientAllocs allocs;
    private final Clock clock;
    private final ProcFs proc;
    private final UsageSampler sampler;
    private final AllocMetrics metrics;
    /** Where the kernel's cgroup file systems are mounted (v1: one per hierarchy below it; v2: it). */
    static final Path CGROUPS = Path.of("/sys/fs/cgroup");

    @Activate
    public ClientAllocRoutes(@Reference ClientAllocs allocs) {
        this(allocs, Clock.systemUTC(), new ProcFs(Path.of("/proc")), System::nanoTime,
                nanos -> Thread.sleep(nanos / 1_000_000));
    }

    ClientAllocRoutes(ClientAllocs allocs, Clock clock) {
        this(allocs, clock, new ProcFs(Path.of("/proc")), System::nanoTime, nanos -> { });
    }

    ClientAllocRoutes(ClientAllocs allocs, Clock clock, ProcFs proc, LongSupplier nanos, UsageSampler.Sleeper sleep) {
        this(allocs, clock, proc, new CgroupFs(CGROUPS, proc.root()), nanos, sleep);
    }

    ClientAllocRoutes(ClientAllocs allocs, Clock clock, ProcFs proc, CgroupFs cgroups, LongSupplier nanos,
                      UsageSampler.Sleeper sleep) {
        this.allocs = allocs;
        this.clock = clock;
        this.proc = proc;
        this.sampler = new UsageSampler(proc, cgroups, nanos, sleep);
        this.metrics = new AllocMetrics(allocs, sampler, proc);
    }

    /** Per-allocation metrics ({@code publish_allocation_metrics}) from the readings the stats endpoint uses. */
    @Override
    public void sample(MetricSink sink) {
        metrics.report(sink);
    }

    @Override
    public void register(RouteTable routes) {
        // Nomad serves restart on GET too; signal takes PUT and POST only.
        ApiEndpoint restart = ClientFsRoutes.inAllocNamespace(allocs, RESTART);
        routes.write("/v1/client/allocation/{alloc}/restart", restart, this::restart)
                .get("/v1/client/allocation/{alloc}/restart", restart, this::restart)
                .write("/v1/client/allocation/{alloc}/signal", ClientFsRoutes.inAllocNamespace(allocs, SIGNAL),
                        this::signal)
                .get("/v1/client/allocation/{alloc}/stats", ClientFsRoutes.inAllocNamespace(allocs, STATS), this::stats)
                .get("/v1/client/allocation/{alloc}/gc", ClientFsRoutes.inAllocNamespace(allocs, GC), this::gc)
                .get("/v1/client/stats", HOST_STATS, this::hostStats)
                .get("/v1/client/allocation/{alloc}/checks", ClientFsRoutes.inAllocNamespace(allocs, CHECKS),
                        this::checks);
    }

    /** Body of {@code restart}; missing fields (or no body at all) mean every running task. */
    record RestartRequest(@JsonProperty("TaskName") String taskName, @JsonProperty("AllTasks") boolean allTasks) {}

    /** Body of {@code signal}. */
    record SignalRequest(@JsonProperty("Task") String task, @JsonProperty("Signal") String signal) {}

    /** Nomad's {@code GenericResponse}, what both writes answer. */
    record GenericResponse(@JsonProperty("Index") long index) {}

    ApiResponse restart(ApiRequest request) {
        String allocId = request.pathParam("alloc");
        RestartRequest body = optionalBody(request, RestartRequest.class);
        String task = body == null || body.taskName() == null || body.taskName().isEmpty() ? null : body.taskName();
        known(allocId);
        try {
            allocs.restart(allocId, task);
        } catch (IllegalArgumentException e) {
            throw refused(allocId, e);
        }
        return ApiResponse.ok(new GenericResponse(0));
    }

    ApiResponse signal(ApiRequest request) {
        String allocId = request.pathParam("alloc");
        SignalRequest body = optionalBody(request, SignalRequest.class);
        if (body == null || body.signal() == null || body.signal().isEmpty()) {
            throw CaravanException.badRequest("must provide a signal");
        }
        String task = body.task() == null || body.task().isEmpty() ? null : body.task();
        known(allocId);
        try {
            allocs.signal(allocId, task, body.signal());
        } catch (IllegalArgumentException e) {
            throw refused(allocId, e);
        } catch (IllegalStateException e) {
            throw new CaravanException(ErrorCode.INTERNAL, e.getMessage());
        }
        return ApiResponse.ok(new GenericResponse(0));
    }

    /** Nomad's check results of the allocation's service checks, by check ID. */
    ApiResponse checks(ApiRequest request) {
        String allocId = request.pathParam("alloc");
        known(allocId);
        try {
            return ApiResponse.ok(allocs.checks(allocId));
        } catch (IllegalArgumentException e) {
            throw refused(allocId, e);
        }
    }

    /** Nomad answers an empty body; an allocation with a task still running is refused with Nomad's text. */
    ApiResponse gc(ApiRequest request) {
        String allocId = request.pathParam("alloc");
        known(allocId);
        boolean collected;
        try {
            collected = allocs.gc(allocId);
        } catch (IllegalArgumentException e) {
            throw refused(allocId, e);
        }
        if (!collected) {
            throw new CaravanException(ErrorCode.INTERNAL,
                    "No such allocation on client, or allocation not eligible for GC");
        }
        return ApiResponse.empty();
    }

    /**
     * The running tasks' usage, summed for the allocation; a task that is not running has no entry, as in Nomad.
     * Tasks whose driver cannot tell its processes report zeros with nothing in {@code Measured}.
     */
    ApiResponse stats(ApiRequest request) {
        String allocId = request.pathParam("alloc");
        known(allocId);
        Map<String, List<Long>> pids;
        try {
            pids = allocs.taskPids(allocId);
        } catch (IllegalArgumentException e) {
            throw refused(allocId, e);
        }
        Map<String, List<Long>> keyed = new LinkedHashMap<>();
        pids.forEach((task, taskPids) -> keyed.put(allocId + "/" + task, taskPids));
        sampler.baseline(keyed);
        double mhz = proc.cpuMhz();
        long now = timestamp();
        Map<String, TaskResourceUsage> tasks = new TreeMap<>();
        List<ResourceUsage> totals = new ArrayList<>();
        for (Map.Entry<String, List<Long>> task : pids.entrySet()) {
            if (task.getValue().isEmpty()) {
                tasks.put(task.getKey(), new TaskResourceUsage(ResourceUsage.unmeasured(), now, Map.of()));
                continue;
            }
            UsageSampler.TaskUsage usage = sampler.task(allocId + "/" + task.getKey(), task.getValue(), mhz);
            tasks.put(task.getKey(), new TaskResourceUsage(usage.total(), now, usage.pids()));
            totals.add(usage.total());
        }
        return ApiResponse.ok(new AllocResourceUsage(ResourceUsage.sum(totals), tasks, now));
    }

    /** Nomad's {@code HostStats}: memory, each CPU's busy share, the block devices' file systems, uptime. */
    ApiResponse hostStats(ApiRequest request) throws IOException {
        if (request.query("node_id").filter(id -> !id.isEmpty() && !id.equals(allocs.nodeId())).isPresent()) {
            throw CaravanException.badRequest("node_id " + request.query("node_id").get()
                    + " is not this client's; ask a server, or the client agent of that node");
        }
        ProcFs.Memory memory = proc.memory();
        double mhz = proc.cpuMhz();
        List<HostCpuStats> cpus = new ArrayList<>();
        double ticks = 0;
        for (Map.Entry<String, double[]> cpu : sampler.hostCpus().entrySet()) {
            double[] p = cpu.getValue();
            cpus.add(new HostCpuStats(cpu.getKey(), p[0], p[1], p[2], p[3]));
            ticks += p[3] / 100 * mhz;
        }
        List<HostDiskStats> disks = new ArrayList<>();
        for (String[] mount : proc.mounts()) {
            disks.add(HostDiskStats.of(mount[0], Path.of(mount[1])));
        }
        disks.removeIf(d -> d == null);
        return ApiResponse.ok(new HostStats(new HostMemoryStats(memory.total(), memory.available(),
                memory.total() - memory.available(), memory.free()), cpus, disks, List.of(), proc.uptime(),
                timestamp(), ticks));
    }

    /** Nomad's {@code HostStats}. */
    record HostStats(@JsonProperty("Memory") HostMemoryStats memory, @JsonProperty("CPU") List<HostCpuStats> cpu,
                     @JsonProperty("DiskStats") List<HostDiskStats> diskStats,
                     @JsonProperty("DeviceStats") List<Object> deviceStats, @JsonProperty("Uptime") long uptime,
                     @JsonProperty("Timestamp") long timestamp,
                     @JsonProperty("CPUTicksConsumed") double cpuTicksConsumed) {}

    record HostMemoryStats(@JsonProperty("Total") long total, @JsonProperty("Available") long available,
                           @JsonProperty("Used") long used, @JsonProperty("Free") long free) {}

    record HostCpuStats(@JsonProperty("CPU") String cpu, @JsonProperty("User") double user,
                        @JsonProperty("System") double system, @JsonProperty("Idle") double idle,
                        @JsonProperty("Total") double total) {}

    /** A file system's space; inode use is not known to the JVM and reported as 0. */
    record HostDiskStats(@JsonProperty("Device") String device, @JsonProperty("Mountpoint") String mountpoint,
                         @JsonProperty("Size") long size, @JsonProperty("Used") long used,
                         @JsonProperty("Available") long available, @JsonProperty("UsedPercent") double usedPercent,
                         @JsonProperty("InodesUsedPercent") double inodesUsedPercent) {
        /** The mount's space, or null when it cannot be read (a mount point this user may not see). */
        static HostDiskStats of(String device, Path mountpoint) {
            try {
                FileStore store = Files.getFileStore(mountpoint);
                long size = store.getTotalSpace();
                long available = store.getUsableSpace();
                long used = size - store.getUnallocatedSpace();
                double percent = size == 0 ? 0 : 100.0 * used / (used + available);
                return new HostDiskStats(device, mountpoint.toString(), size, used, available, percent, 0);
            } catch (IOException | SecurityException e) {
                return null;
            }
        }
    }

    /** Nomad's {@code AllocResourceUsage}. */
    record AllocResourceUsage(@JsonProperty("ResourceUsage") ResourceUsage resourceUsage,
                              @JsonProperty("Tasks") Map<String, TaskResourceUsage> tasks,
                              @JsonProperty("Timestamp") long timestamp) {}

    /** Nomad's {@code TaskResourceUsage}. */
    record TaskResourceUsage(@JsonProperty("ResourceUsage") ResourceUsage resourceUsage,
                             @JsonProperty("Timestamp") long timestamp,
                             @JsonProperty("Pids") Map<String, ResourceUsage> pids) {}

    /** Nomad's {@code ResourceUsage}. */
    record ResourceUsage(@JsonProperty("MemoryStats") MemoryStats memoryStats,
                         @JsonProperty("CpuStats") CpuStats cpuStats,
                         @JsonProperty("DeviceStats") List<Object> deviceStats) {
        static ResourceUsage unmeasured() {
            return new ResourceUsage(new MemoryStats(0, 0, 0, 0, 0, 0, 0, 0, List.of()),
                    new CpuStats(0, 0, 0, 0, 0, 0, List.of()), List.of());
        }

        /** The sum of the tasks' usage, measuring what all of them measure; none: unmeasured. */
        static ResourceUsage sum(List<ResourceUsage> parts) {
            if (parts.isEmpty()) {
                return unmeasured();
            }
            MemoryStats m = new MemoryStats(0, 0, 0, 0, 0, 0, 0, 0, parts.get(0).memoryStats().measured());
            CpuStats c = new CpuStats(0, 0, 0, 0, 0, 0, parts.get(0).cpuStats().measured());
            for (ResourceUsage p : parts) {
                MemoryStats pm = p.memoryStats();
                CpuStats pc = p.cpuStats();
                m = new MemoryStats(m.rss() + pm.rss(), m.cache() + pm.cache(), m.swap() + pm.swap(),
                        m.mappedFile() + pm.mappedFile(), m.usage() + pm.usage(), m.maxUsage() + pm.maxUsage(),
                        m.kernelUsage() + pm.kernelUsage(), m.kernelMaxUsage() + pm.kernelMaxUsage(), m.measured());
                c = new CpuStats(c.systemMode() + pc.systemMode(), c.userMode() + pc.userMode(),
                        c.totalTicks() + pc.totalTicks(), c.throttledPeriods() + pc.throttledPeriods(),
                        c.throttledTime() + pc.throttledTime(), c.percent() + pc.percent(), c.measured());
            }
            return new ResourceUsage(m, c, List.of());
        }
    }

    /** Nomad's {@code MemoryStats}; {@code Measured} names what was measured. */
    record MemoryStats(@JsonProperty("RSS") long rss, @JsonProperty("Cache") long cache,
                       @JsonProperty("Swap") long swap, @JsonProperty("MappedFile") long mappedFile,
                       @JsonProperty("Usage") long usage, @JsonProperty("MaxUsage") long maxUsage,
                       @JsonProperty("KernelUsage") long kernelUsage,
                       @JsonProperty("KernelMaxUsage") long kernelMaxUsage,
                       @JsonProperty("Measured") List<String> measured) {}

    /** Nomad's {@code CpuStats}. */
    record CpuStats(@JsonProperty("SystemMode") double systemMode, @JsonProperty("UserMode") double userMode,
                    @JsonProperty("TotalTicks") double totalTicks,
                    @JsonProperty("ThrottledPeriods") long throttledPeriods,
                    @JsonProperty("ThrottledTime") long throttledTime, @JsonProperty("Percent") double percent,
                    @JsonProperty("Measured") List<String> measured) {}

    /** Nanoseconds since the epoch, as Nomad's {@code Timestamp}. */
    private long timestamp() {
        Instant now = clock.instant();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    private Path known(String allocId) {
        return allocs.allocDir(allocId).orElseThrow(() -> ClientFsRoutes.unknownAllocation(allocId));
    }

    private static CaravanException refused(String allocId, IllegalArgumentException e) {
        String message = e.getMessage() == null ? "invalid request" : e.getMessage();
        if (message.startsWith("Unknown allocation")) {
            return ClientFsRoutes.unknownAllocation(allocId);
        }
        return CaravanException.badRequest(message);
    }

    /** The JSON body, or null when there is none: Nomad's handlers accept an empty body (io.EOF) for these. */
    private static <T> T optionalBody(ApiRequest request, Class<T> type) {
        try {
            return request.body(type);
        } catch (CaravanException e) {
            if (e.code() == ErrorCode.BAD_REQUEST && "Request body is empty".equals(e.getMessage())) {
                return null;
            }
            throw e;
        }
    }
}
