package io.caravan.server.internal;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Predicate;

import io.caravan.api.CaravanException;
import io.caravan.api.acl.AclRule;
import io.caravan.api.model.Evaluation;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiRequest;
import io.caravan.http.ApiResponse;
import io.caravan.http.ApiRoutes;
import io.caravan.http.QueryMeta;
import io.caravan.http.QueryOptions;
import io.caravan.http.RouteTable;
import io.caravan.http.filter.Filter;
import io.caravan.state.Indexed;
import io.caravan.state.StateSnapshot;
import io.caravan.state.StateStore;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Reference;

/**
 * Nomad's evaluations list, count and delete ({@code /v1/evaluations}). The list honours {@code namespace} (and
 * {@code *}), {@code prefix}, {@code job}, {@code status}, {@code filter}, {@code reverse} and pagination; the
 * delete takes IDs or a filter, only while the operator has paused the eval broker, and writes bounded entries
 * ({@link EvalDeletes}).
 */
@Component(service = ApiRoutes.class, configurationPid = "io.caravan.server",
        configurationPolicy = ConfigurationPolicy.REQUIRE)
public final class EvalRoutes implements ApiRoutes {
    static final ApiEndpoint COUNT = ApiEndpoint.of("Eval.Count", JobRoutes.EVAL_LIST.rule());
    static final ApiEndpoint DELETE = ApiEndpoint.of("Eval.Delete", AclRule.MANAGEMENT).onLeader();

    private final StateStore store;
    private final RaftWrites writes;
    private final StateReads reads;

    @Activate
    public EvalRoutes(@Reference ServerState state, @Reference RaftWrites writes) {
        this.store = state.store();
        this.writes = writes;
        this.reads = new StateReads(store, writes);
    }

    @Override
    public void register(RouteTable routes) {
        routes.getAsync("/v1/evaluations", JobRoutes.EVAL_LIST, r -> reads.list(r, NomadTables.EVALS,
                        JobRoutes.EVALS_READ, selected(r), (s, e) -> e))
                .getAsync("/v1/evaluations/count", COUNT, this::count)
                .deleteAsync("/v1/evaluations", DELETE, this::delete);
    }

    /** The list's own parameters: {@code job} (an exact job ID) and {@code status}. */
    private static Predicate<Evaluation> selected(ApiRequest r) {
        String job = r.query("job").orElse("");
        String status = r.query("status").orElse("");
        return e -> (job.isEmpty() || job.equals(e.jobId())) && (status.isEmpty() || status.equals(e.status()));
    }

    /** Nomad's {@code {"Count": n}}: the evaluations of the namespace(s) the caller may read that match the filter. */
    record Count(int count) {}

    private CompletionStage<ApiResponse> count(ApiRequest r) {
        QueryOptions o = r.options();
        Predicate<Evaluation> matches = o.filter().isEmpty() ? e -> true
                : EvalDeletes.matcher(Filter.parse(o.filter()));
        Predicate<Evaluation> visible = JobRoutes.EVALS_READ.visibleTo(r);
        Predicate<Evaluation> selected = selected(r);
        return reads.query(r, (s, ws) -> {
            ws.table(NomadTables.EVALS.name());
            int n = (int) s.prefix(NomadTables.EVALS, o.prefix())
                    .filter(e -> selected.test(e) && visible.test(e) && matches.test(e)).count();
            return new Indexed<>(new Count(n), s.tableIndex(NomadTables.EVALS.name()));
        });
    }

    /** Nomad's {@code EvalDeleteRequest}; {@code PerPage} bounds each entry of a filter delete. */
    record DeleteRequest(List<String> evalIds, String filter, Integer perPage) {}

    private CompletionStage<ApiResponse> delete(ApiRequest r) {
        DeleteRequest req = r.body(DeleteRequest.class);
        List<String> ids = req == null || req.evalIds() == null ? List.of() : req.evalIds();
        String filter = req == null || req.filter() == null ? "" : req.filter();
        if (!filter.isEmpty() && !ids.isEmpty()) {
            throw CaravanException.badRequest("evals cannot be deleted by both ID and filter");
        }
        if (filter.isEmpty() && ids.isEmpty()) {
            throw CaravanException.badRequest("evals must be deleted by either ID or filter");
        }
        if (ids.size() > EvalDeletes.MAX_IDS) {
            throw CaravanException.badRequest("request includes " + ids.size() + " evaluation IDs, must be "
                    + EvalDeletes.MAX_IDS + " or fewer");
        }
        int perPage = req.perPage() == null || req.perPage() == 0 ? EvalDeletes.DEFAULT_PER_PAGE : req.perPage();
        if (perPage < 1 || perPage > EvalDeletes.MAX_PER_PAGE) {
            throw CaravanException.invalid("PerPage", "must be between 1 and " + EvalDeletes.MAX_PER_PAGE);
        }
        StateSnapshot s = store.snapshot();
        if (!SnapshotSchedulerState.schedulerConfig(s).pauseEvalBroker()) {
            throw CaravanException.badRequest(
                    "eval broker is enabled; eval broker must be paused to delete evals");
        }
        if (!filter.isEmpty()) {
            Predicate<Evaluation> matches = EvalDeletes.matcher(Filter.parse(filter));
            return deletePages(matches, filter, "", perPage, 0, s.latestIndex());
        }
        List<String> safe = ids.stream().distinct().filter(id -> s.get(NomadTables.EVALS, id)
                .filter(e -> EvalDeletes.safeToDelete(s, e)).isPresent()).toList();
        if (safe.isEmpty()) {
            return CompletableFuture.completedFuture(deleted(0, s.latestIndex()));
        }
        return writes.submit(new Command.EvalDelete(safe, "", "", "", 0))
                .thenApply(result -> deleted(safe.size(), result.index()));
    }

    /**
     * One page after another, each its own entry: the page is read on this server's state (which the previous
     * entry has reached, since a write answers once applied here) and re-run by the log.
     */
    private CompletionStage<ApiResponse> deletePages(Predicate<Evaluation> matches, String filter, String fromId,
                                                     int perPage, int total, long index) {
        EvalDeletes.Page page = EvalDeletes.page(store.snapshot(), matches, fromId, perPage);
        if (page.count() == 0) {
            return CompletableFuture.completedFuture(deleted(total, index));
        }
        return writes.submit(new Command.EvalDelete(List.of(), filter, page.fromId(), page.toId(), perPage))
                .thenCompose(result -> page.toId().isEmpty()
                        ? CompletableFuture.completedFuture(deleted(total + page.count(), result.index()))
                        : deletePages(matches, filter, page.toId(), perPage, total + page.count(),
                                result.index()));
    }

    private static ApiResponse deleted(int count, long index) {
        return ApiResponse.ok(new Count(count), QueryMeta.index(index));
    }
}
