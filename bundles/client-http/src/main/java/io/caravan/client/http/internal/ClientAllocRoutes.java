package io.caravan.client.http.internal;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.AclRule;
import io.caravan.api.acl.Capability;
import io.caravan.client.ClientAllocs;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiRequest;
import io.caravan.http.ApiResponse;
import io.caravan.http.ApiRoutes;
import io.caravan.http.RouteTable;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * Nomad's client-side allocation endpoints: {@code restart}, {@code signal} and {@code gc} (handed to
 * {@link ClientAllocs}), and {@code stats}. Resource usage is not measured yet: {@code stats} answers Nomad's shape with zeros and an
 * empty {@code Measured} list, which is how a Nomad client says "nothing measured" (the CLI and UI then show no
 * figures instead of failing, as they would on an error status).
 */
@Component(service = ApiRoutes.class)
public final class ClientAllocRoutes implements ApiRoutes {
    // ---- the endpoints: Nomad's names and the ACL rule each checks, in the allocation's namespace ---------------
    static final ApiEndpoint RESTART = ApiEndpoint.of("ClientAllocations.Restart",
            AclRule.namespace(Capability.ALLOC_LIFECYCLE));
    static final ApiEndpoint SIGNAL = ApiEndpoint.of("ClientAllocations.Signal",
            AclRule.namespace(Capability.ALLOC_LIFECYCLE));
    static final ApiEndpoint STATS = ApiEndpoint.of("ClientAllocations.Stats", AclRule.namespace(Capability.READ_JOB));
    static final ApiEndpoint GC = ApiEndpoint.of("ClientAllocations.GarbageCollect",
            AclRule.namespace(Capability.SUBMIT_JOB));

    private final ClientAllocs allocs;
    private final Clock clock;

    @Activate
    public ClientAllocRoutes(@Reference ClientAllocs allocs) {
        this(allocs, Clock.systemUTC());
    }

    ClientAllocRoutes(ClientAllocs allocs, Clock clock) {
        this.allocs = allocs;
        this.clock = clock;
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
                .get("/v1/client/allocation/{alloc}/gc", ClientFsRoutes.inAllocNamespace(allocs, GC), this::gc);
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

    ApiResponse stats(ApiRequest request) throws IOException {
        String allocId = request.pathParam("alloc");
        Path dir = known(allocId);
        long now = timestamp();
        Map<String, TaskResourceUsage> tasks = new TreeMap<>();
        for (String task : taskNames(dir)) {
            tasks.put(task, new TaskResourceUsage(ResourceUsage.unmeasured(), now, Map.of()));
        }
        return ApiResponse.ok(new AllocResourceUsage(ResourceUsage.unmeasured(), tasks, now));
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
    }

    /** Nomad's {@code MemoryStats}; {@code Measured} names what was measured (nothing yet). */
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

    /** The task directories: every directory of the allocation but the shared {@code alloc}. */
    private static List<String> taskNames(Path dir) throws IOException {
        List<String> out = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return out;
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (!name.equals("alloc") && Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)) {
                    out.add(name);
                }
            }
        }
        return out;
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
