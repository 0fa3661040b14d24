package io.caravan.client.http.internal;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

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
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

/**
 * Nomad's {@code /v1/client/fs/*}: an allocation's files ({@code ls}, {@code stat}, {@code cat}, {@code readat},
 * {@code stream}) and its tasks' logs ({@code logs}), every path confined to the allocation directory
 * ({@link AllocFs}). Streams are pumped by one small scheduler this component owns; no request holds a servlet
 * thread while it follows a file. The mandatory {@link ClientAllocs} reference means the routes exist only where a
 * client runs.
 */
@Component(service = ApiRoutes.class)
public final class ClientFsRoutes implements ApiRoutes {
    // ---- the endpoints: Nomad's names and the ACL rule each checks, in the allocation's namespace ---------------
    private static final AclRule READ_FS = AclRule.namespace(Capability.READ_FS);

    static final ApiEndpoint LIST = ApiEndpoint.of("ClientFS.List", READ_FS);
    static final ApiEndpoint STAT = ApiEndpoint.of("ClientFS.Stat", READ_FS);
    static final ApiEndpoint CAT = ApiEndpoint.of("ClientFS.Cat", READ_FS);
    static final ApiEndpoint READ_AT = ApiEndpoint.of("ClientFS.ReadAt", READ_FS);
    static final ApiEndpoint STREAM = ApiEndpoint.of("ClientFS.Stream", READ_FS);
    /** Logs: read-logs, or read-fs (which can read the log files anyway). */
    static final ApiEndpoint LOGS = ApiEndpoint.of("ClientFS.Logs",
            AclRule.anyOf(AclRule.namespace(Capability.READ_LOGS), READ_FS));

    private final ClientAllocs allocs;
    private final ScheduledExecutorService scheduler;
    private final LongSupplier millis;
    /** Streams started and not yet ended, so deactivation can end them. */
    private final Set<FileStream> open = ConcurrentHashMap.newKeySet();

    @Activate
    public ClientFsRoutes(@Reference ClientAllocs allocs) {
        this(allocs, newScheduler(), System::currentTimeMillis);
    }

    ClientFsRoutes(ClientAllocs allocs, ScheduledExecutorService scheduler, LongSupplier millis) {
        this.allocs = allocs;
        this.scheduler = scheduler;
        this.millis = millis;
    }

    private static ScheduledExecutorService newScheduler() {
        AtomicInteger n = new AtomicInteger();
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(2, r -> {
            Thread t = new Thread(r, "caravan-client-fs-stream-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        return executor;
    }

    /** Ends every open stream (followers see the response end) and stops the scheduler. */
    @Deactivate
    void deactivate() throws InterruptedException {
        scheduler.shutdownNow();
        scheduler.awaitTermination(2, TimeUnit.SECONDS);
        open.forEach(FileStream::abort);
        open.clear();
    }

    @Override
    public void register(RouteTable routes) {
        routes.get("/v1/client/fs/ls/{alloc}", inAllocNamespace(allocs, LIST), this::list)
                .get("/v1/client/fs/stat/{alloc}", inAllocNamespace(allocs, STAT), this::stat)
                .get("/v1/client/fs/cat/{alloc}", inAllocNamespace(allocs, CAT), this::cat)
                .get("/v1/client/fs/readat/{alloc}", inAllocNamespace(allocs, READ_AT), this::readAt)
                .get("/v1/client/fs/stream/{alloc}", inAllocNamespace(allocs, STREAM), this::stream)
                .get("/v1/client/fs/logs/{alloc}", inAllocNamespace(allocs, LOGS), this::logs);
    }

    /**
     * The endpoint checked in the namespace of the allocation the call names, never the one the query names; for an
     * allocation unknown here the query's, and the handler answers 404.
     */
    static ApiEndpoint inAllocNamespace(ClientAllocs allocs, ApiEndpoint endpoint) {
        return endpoint.namespacedBy(r -> allocs.namespace(r.pathParam("alloc")).orElse(null));
    }

    ApiResponse list(ApiRequest request) throws IOException {
        String path = Params.nonEmpty(request, "path").orElse("/");
        AllocFs fs = allocFs(request);
        Path dir = fs.resolve(path);
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            throw CaravanException.badRequest("readdirent " + path + ": not a directory");
        }
        List<AllocFileInfo> entries = new ArrayList<>();
        try (DirectoryStream<Path> stream = fs.openDir(dir)) {
            for (Path entry : stream) {
                try {
                    entries.add(AllocFileInfo.entry(dir.resolve(entry.getFileName().toString())));
                } catch (NoSuchFileException e) {
                    // removed while listing
                }
            }
        }
        entries.sort(Comparator.comparing(AllocFileInfo::name));
        return ApiResponse.ok(entries);
    }

    ApiResponse stat(ApiRequest request) throws IOException {
        String path = Params.required(request, "path", Params.NO_FILE);
        AllocFs fs = allocFs(request);
        Path real = fs.resolve(path);
        String name = real.equals(fs.root()) ? fs.root().getFileName().toString() : lastSegment(path, real);
        return ApiResponse.ok(AllocFileInfo.stat(name, real, fs));
    }

    ApiResponse cat(ApiRequest request) throws IOException {
        String path = Params.required(request, "path", Params.NO_FILE);
        AllocFs fs = allocFs(request);
        Path real = readable(fs, path);
        return stream(fs, new FileSource(fs, real, 0, 0, false), true);
    }

    ApiResponse readAt(ApiRequest request) throws IOException {
        String path = Params.required(request, "path", Params.NO_FILE);
        long offset = Params.offset(request, "offset", null);
        long limit = Params.offset(request, "limit", 0L);
        AllocFs fs = allocFs(request);
        Path real = readable(fs, path);
        return stream(fs, new FileSource(fs, real, offset, limit, false), true);
    }

    ApiResponse stream(ApiRequest request) throws IOException {
        String path = Params.required(request, "path", Params.NO_FILE);
        boolean follow = Params.bool(request, "follow", true);
        long offset = Params.offset(request, "offset", 0L);
        boolean fromEnd = Params.fromEnd(request);
        boolean plain = Params.bool(request, "plain", false);
        AllocFs fs = allocFs(request);
        Path real = readable(fs, path);
        if (fromEnd) {
            offset = Math.max(0, Files.size(real) - offset);
        }
        return stream(fs, new FileSource(fs, real, offset, 0, follow), plain);
    }

    ApiResponse logs(ApiRequest request) throws IOException {
        String task = Params.taskName(request);
        boolean follow = Params.bool(request, "follow", false);
        boolean plain = Params.bool(request, "plain", false);
        String type = request.query("type").orElse("");
        if (!type.equals("stdout") && !type.equals("stderr")) {
            throw CaravanException.badRequest(Params.NO_LOG_TYPE);
        }
        long offset = Params.offset(request, "offset", 0L);
        boolean fromEnd = Params.fromEnd(request);
        AllocFs fs = allocFs(request);
        return stream(fs, LogSource.open(fs, task, type, fromEnd, offset, follow), plain);
    }

    private ApiResponse stream(AllocFs fs, StreamSource source, boolean plain) {
        return ApiResponse.stream(new FileStream(fs.allocId(), source, plain, scheduler, millis, open));
    }

    /** Resolves a file to read: not a directory, not in a task's {@code secrets} or {@code private} directory. */
    private static Path readable(AllocFs fs, String path) {
        Path real = fs.resolve(path);
        if (Files.isDirectory(real, LinkOption.NOFOLLOW_LINKS)) {
            throw CaravanException.badRequest("file " + Params.quote(path) + " is a directory");
        }
        if (fs.isSecret(real)) {
            throw new CaravanException(ErrorCode.PERMISSION_DENIED, "Reading secret file prohibited: " + path);
        }
        if (!Files.isRegularFile(real, LinkOption.NOFOLLOW_LINKS)) {
            throw CaravanException.badRequest(AllocFs.NOT_REGULAR + ": " + path);
        }
        return real;
    }

    /** As Go's {@code os.Stat} names a file: the last segment of the path asked for, even through a link. */
    private static String lastSegment(String path, Path real) {
        List<String> parts = AllocFs.clean(path);
        return parts.isEmpty() ? real.getFileName().toString() : parts.get(parts.size() - 1);
    }

    private AllocFs allocFs(ApiRequest request) throws IOException {
        return allocFs(allocs, request.pathParam("alloc"));
    }

    /** The allocation's directory, or Nomad's 404 {@code Unknown allocation "<id>"}. */
    static AllocFs allocFs(ClientAllocs allocs, String allocId) throws IOException {
        Path dir = allocs.allocDir(allocId).orElseThrow(() -> unknownAllocation(allocId));
        try {
            return AllocFs.of(allocId, dir);
        } catch (NoSuchFileException e) {
            throw CaravanException.notFound("state for allocation " + allocId + " not found on client");
        }
    }

    static CaravanException unknownAllocation(String allocId) {
        return CaravanException.notFound("Unknown allocation " + Params.quote(allocId));
    }
}
