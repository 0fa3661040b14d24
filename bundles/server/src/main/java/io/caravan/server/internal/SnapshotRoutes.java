package io.caravan.server.internal;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledThreadPoolExecutor;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.AclRule;
import io.caravan.consensus.RaftConfiguration;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiRequest;
import io.caravan.http.ApiResponse;
import io.caravan.http.ApiRoutes;
import io.caravan.http.HttpForward;
import io.caravan.http.QueryMeta;
import io.caravan.http.RawBody;
import io.caravan.http.RouteTable;
import io.caravan.rpc.LeaderLocator;
import io.caravan.rpc.Rpc;
import io.caravan.state.StateSnapshot;
import io.caravan.state.StateStore;
import io.caravan.state.TableSpec;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * Nomad's {@code /v1/operator/snapshot}: {@code GET} saves the state store as a {@link SnapshotArchive} (from the
 * leader, or from the server asked with {@code ?stale}), with its index in {@code X-Nomad-Index}; {@code PUT} restores
 * one on every server through the log ({@link SnapshotRestore}), after checking the whole file here first. Both take a
 * management token, as in Nomad.
 */
@Component(service = ApiRoutes.class, configurationPid = "io.caravan.server",
        configurationPolicy = ConfigurationPolicy.REQUIRE)
public final class SnapshotRoutes implements ApiRoutes {
    static final ApiEndpoint SAVE = ApiEndpoint.of("Operator.SnapshotSave", AclRule.MANAGEMENT);
    static final ApiEndpoint RESTORE = ApiEndpoint.of("Operator.SnapshotRestore", AclRule.MANAGEMENT).onLeader();
    static final String CONTENT_TYPE = "application/octet-stream";
    /** The servlet's mark of a call forwarded to the leader once (it is not forwarded again). */

    private final StateStore store;
    private final RaftWrites writes;
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    volatile LeaderLocator servers;
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    volatile Rpc rpc;
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    volatile RaftConfiguration raft;

    @Activate
    public SnapshotRoutes(@Reference ServerState state, @Reference RaftWrites writes) {
        this.store = state.store();
        this.writes = writes;
    }

    @Override
    public void register(RouteTable routes) {
        routes.getAsync("/v1/operator/snapshot", SAVE, this::save)
                .writeAsync("/v1/operator/snapshot", RESTORE, this::restore);
    }

    private CompletableFuture<ApiResponse> save(ApiRequest r) {
        LeaderLocator locator = servers;
        Rpc transport = rpc;
        if (!r.options().allowStale() && r.header(HttpForward.FORWARDED).isEmpty() && locator != null && transport != null
                && !locator.isLeader()) {
            String leader = locator.leaderRpcAddress().orElseThrow(
                    () -> new CaravanException(ErrorCode.NO_LEADER, "No cluster leader"));
            return transport.callAt(leader, HttpForward.METHOD, HttpForward.Call.of(r).forwarded(),
                    HttpForward.Answer.class)
                    .thenApply(HttpForward.Answer::toResponse).toCompletableFuture();
        }
        StateSnapshot snapshot = store.snapshot();
        RaftConfiguration group = raft;
        byte[] archive = archive(snapshot, group == null ? 0 : group.term());
        return CompletableFuture.completedFuture(new ApiResponse(200, new RawBody(CONTENT_TYPE, archive),
                QueryMeta.index(snapshot.latestIndex())));
    }

    /**
     * The archive of {@code snapshot}: metadata, then the state stream it describes.
     *
     * @param term the Raft term when saved (Ratis does not say which term wrote the last applied entry)
     */
    static byte[] archive(StateSnapshot snapshot, long term) {
        ByteArrayOutputStream state = new ByteArrayOutputStream();
        try {
            snapshot.writeTo(state, NomadTables.codec());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        byte[] bytes = state.toByteArray();
        Map<String, Integer> tables = new LinkedHashMap<>();
        for (TableSpec<?> table : NomadTables.ALL) {
            tables.put(table.name(), snapshot.count(table));
        }
        return SnapshotArchive.write(new SnapshotArchive.Meta(SnapshotArchive.VERSION,
                snapshot.latestIndex() + "-" + System.currentTimeMillis(), snapshot.latestIndex(), term,
                System.currentTimeMillis(), bytes.length, SnapshotArchive.sha256(bytes), tables), bytes);
    }

    /**
     * Checks the whole file (header, size, SHA-256, and the state stream read into a scratch store) before the first
     * piece reaches the log; then stages it piece by piece and commits. A bad file is a 400 and changes nothing.
     */
    private CompletableFuture<ApiResponse> restore(ApiRequest r) {
        byte[] file = r.rawBody();
        if (file.length == 0) {
            throw CaravanException.badRequest("snapshot restore: empty body; send a file saved by GET "
                    + "/v1/operator/snapshot");
        }
        SnapshotArchive.Read read;
        try {
            read = SnapshotArchive.read(file);
        } catch (IllegalArgumentException e) {
            throw CaravanException.badRequest("snapshot restore: " + e.getMessage() + "; nothing was restored");
        }
        verifyState(read.state());
        String restoreId = UUID.randomUUID().toString();
        List<Command> commands = SnapshotRestore.commands(restoreId, read.state());
        CompletionStage<Command.Result> chain = CompletableFuture.completedFuture(null);
        for (Command command : commands) {
            chain = chain.thenCompose(previous -> writes.submit(command));
        }
        return chain.thenApply(result -> new ApiResponse(200, null, QueryMeta.index(result.index())))
                .toCompletableFuture();
    }

    /** Reads the state stream into a throw-away store: its magic, version, tables, rows and CRC must all hold. */
    private static void verifyState(byte[] state) {
        ScheduledThreadPoolExecutor scratch = new ScheduledThreadPoolExecutor(1);
        try {
            StateStore.create(NomadTables.ALL, scratch, scratch).restore(new ByteArrayInputStream(state),
                    NomadTables.codec());
        } catch (IOException | RuntimeException e) {
            throw CaravanException.badRequest("snapshot restore: its state does not read ("
                    + Optional.ofNullable(e.getMessage()).orElse(e.toString()) + "); nothing was restored");
        } finally {
            scratch.shutdownNow();
        }
    }
}
