package io.caravan.server.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.function.Predicate;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.Access;
import io.caravan.api.acl.AclRule;
import io.caravan.api.acl.Capability;
import io.caravan.api.acl.Scope;
import io.caravan.api.model.AllocListStub;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.DesiredTransition;
import io.caravan.api.model.DrainStrategy;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Node;
import io.caravan.api.model.NodeListStub;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiRequest;
import io.caravan.http.ApiResponse;
import io.caravan.http.ApiRoutes;
import io.caravan.http.QueryMeta;
import io.caravan.http.RouteTable;
import io.caravan.state.Indexed;
import io.caravan.state.StateSnapshot;
import io.caravan.state.StateStore;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * Nomad's node, allocation and scheduler-configuration endpoints: reads as blocking queries, writes (eligibility,
 * drain, purge, alloc stop, scheduler configuration) through Raft with the evaluations they call for.
 */
@Component(service = ApiRoutes.class)
public final class NodeRoutes implements ApiRoutes {
    // ---- the endpoints: Nomad's names and the ACL rule each checks ----------------------------------------------
    private static final AclRule NODE_READ = AclRule.scope(Scope.NODE, Access.READ);
    private static final AclRule NODE_WRITE = AclRule.scope(Scope.NODE, Access.WRITE);

    static final ApiEndpoint NODE_LIST = ApiEndpoint.of("Node.List", NODE_READ);
    static final ApiEndpoint NODE_GET = ApiEndpoint.of("Node.GetNode", NODE_READ);
    /** node:read, and only the allocations of namespaces where the caller has read-job. */
    static final ApiEndpoint NODE_ALLOCS = ApiEndpoint.of("Node.GetAllocs", NODE_READ);
    static final ApiEndpoint NODE_ELIGIBILITY = ApiEndpoint.of("Node.UpdateEligibility", NODE_WRITE);
    static final ApiEndpoint NODE_DRAIN = ApiEndpoint.of("Node.UpdateDrain", NODE_WRITE);
    static final ApiEndpoint NODE_PURGE = ApiEndpoint.of("Node.Deregister", NODE_WRITE);
    static final ApiEndpoint ALLOC_LIST = ApiEndpoint.of("Alloc.List", AclRule.namespace(Capability.READ_JOB));
    /** An allocation by ID: in the allocation's own namespace ({@link #allocNamespace}). */
    static final ApiEndpoint ALLOC_GET = ApiEndpoint.of("Alloc.GetAlloc", AclRule.namespace(Capability.READ_JOB));
    static final ApiEndpoint ALLOC_STOP = ApiEndpoint.of("Alloc.Stop", AclRule.namespace(Capability.ALLOC_LIFECYCLE));
    static final ApiEndpoint SCHEDULER_GET = ApiEndpoint.of("Operator.SchedulerGetConfiguration",
            AclRule.scope(Scope.OPERATOR, Access.READ));
    static final ApiEndpoint SCHEDULER_SET = ApiEndpoint.of("Operator.SchedulerSetConfiguration",
            AclRule.scope(Scope.OPERATOR, Access.WRITE));

    private final StateStore store;
    private final StateReads reads;
    private final RaftWrites writes;
    private final Clock clock = Clock.systemUTC();

    @Activate
    public NodeRoutes(@Reference ServerState state, @Reference RaftWrites writes) {
        this.store = state.store();
        this.reads = new StateReads(store, writes);
        this.writes = writes;
    }

    @Override
    public void register(RouteTable routes) {
        ApiEndpoint allocGet = ALLOC_GET.namespacedBy(this::allocNamespace);
        ApiEndpoint allocStop = ALLOC_STOP.namespacedBy(this::allocNamespace);
        routes.getAsync("/v1/nodes", NODE_LIST, r -> reads.list(r, NomadTables.NODES, (s, n) -> NodeListStub.of(n,
                        flag(r, "os"), flag(r, "resources"))))
                .getAsync("/v1/node/{id}", NODE_GET, r -> reads.one(r, NomadTables.NODES, r.pathParam("id"),
                        "node not found"))
                .getAsync("/v1/node/{id}/allocations", NODE_ALLOCS, r -> reads.query(r, (s, ws) -> {
                    ws.indexKey(NomadTables.ALLOCS.name(), "node", r.pathParam("id"));
                    // Every namespace's, but only those the caller may read (Nomad's node:read and read-job).
                    Predicate<Allocation> granted = JobRoutes.ALLOCS_READ.grantedTo(r);
                    return new Indexed<>(s.byIndex(NomadTables.ALLOCS, "node", r.pathParam("id")).filter(granted)
                            .toList(), s.tableIndex(NomadTables.ALLOCS.name()));
                }))
                .writeAsync("/v1/node/{id}/eligibility", NODE_ELIGIBILITY, this::eligibility)
                .writeAsync("/v1/node/{id}/drain", NODE_DRAIN, this::drain)
                .writeAsync("/v1/node/{id}/purge", NODE_PURGE, this::purge)
                .getAsync("/v1/allocations", ALLOC_LIST, r -> reads.list(r, NomadTables.ALLOCS, JobRoutes.ALLOCS_READ,
                        (s, a) -> AllocListStub.of(a, flag(r, "resources"))))
                .getAsync("/v1/allocation/{id}", allocGet, r -> reads.one(r, NomadTables.ALLOCS, r.pathParam("id"),
                        "alloc not found", JobRoutes.ALLOCS_READ))
                .writeAsync("/v1/allocation/{id}/stop", allocStop, this::stopAlloc)
                .getAsync("/v1/operator/scheduler/configuration", SCHEDULER_GET, r -> reads.query(r, (s, ws) -> {
                    ws.table(NomadTables.SCHEDULER_CONFIG.name());
                    SchedulerConfig config = s.get(NomadTables.SCHEDULER_CONFIG, SchedulerConfig.KEY)
                            .orElse(SchedulerConfig.DEFAULT);
                    return new Indexed<>(new SchedulerConfigResponse(config, s.latestIndex(), 0, true),
                            Math.max(1, s.tableIndex(NomadTables.SCHEDULER_CONFIG.name())));
                }))
                .writeAsync("/v1/operator/scheduler/configuration", SCHEDULER_SET, this::setSchedulerConfig);
    }

    /** An allocation's own namespace, for the rule; null for one that does not exist (the handler answers 404). */
    private String allocNamespace(ApiRequest r) {
        return store.snapshot().get(NomadTables.ALLOCS, r.pathParam("id")).map(Allocation::namespace).orElse(null);
    }

    private static boolean flag(ApiRequest r, String name) {
        return r.query(name).map(v -> v.isEmpty() || v.equals("true")).orElse(false);
    }

    /** Nomad's {@code NodeUpdateEligibilityRequest} body. */
    record EligibilityRequest(String nodeId, String eligibility) {}

    /** Nomad's {@code NodeDrainUpdateResponse} / eligibility response. */
    record NodeUpdateResponse(List<String> evalIds, long evalCreateIndex, long nodeModifyIndex, long index) {}

    private CompletionStage<ApiResponse> eligibility(ApiRequest r) {
        EligibilityRequest req = r.body(EligibilityRequest.class);
        String eligibility = req == null ? null : req.eligibility();
        if (!Node.ELIGIBLE.equals(eligibility) && !Node.INELIGIBLE.equals(eligibility)) {
            throw CaravanException.invalid("Eligibility", "invalid scheduling eligibility \"" + eligibility + "\"");
        }
        Node node = node(r.pathParam("id"));
        List<Evaluation> evals = Node.ELIGIBLE.equals(eligibility) ? evalsFor(node) : List.of();
        return writes.submit(new Command.NodeEligibilityUpdate(node.id(), eligibility, evals))
                .thenApply(result -> nodeUpdated(result, evals));
    }

    /** Nomad's {@code NodeUpdateDrainRequest}: {@code DrainSpec} null ends the drain. */
    record DrainRequest(DrainSpec drainSpec, boolean markEligible, Map<String, String> meta) {}

    record DrainSpec(long deadline, boolean ignoreSystemJobs) {}

    private CompletionStage<ApiResponse> drain(ApiRequest r) {
        DrainRequest req = r.body(DrainRequest.class);
        Node node = node(r.pathParam("id"));
        Instant now = clock.instant();
        DrainStrategy strategy = null;
        if (req != null && req.drainSpec() != null) {
            Duration deadline = Duration.ofNanos(req.drainSpec().deadline());
            // Nomad: a negative deadline forces the drain now; zero means no deadline.
            Instant force = deadline.isNegative() ? now : deadline.isZero() ? null : now.plus(deadline);
            strategy = new DrainStrategy(deadline, req.drainSpec().ignoreSystemJobs(), force, now);
        }
        List<Evaluation> evals = evalsFor(node, Evaluation.TRIGGER_NODE_DRAIN);
        return writes.submit(new Command.NodeDrainUpdate(node.id(), strategy, req != null && req.markEligible(), false,
                        nanos(now), evals))
                .thenApply(result -> nodeUpdated(result, evals));
    }

    private CompletionStage<ApiResponse> purge(ApiRequest r) {
        Node node = node(r.pathParam("id"));
        List<Evaluation> evals = evalsFor(node);
        return writes.submit(new Command.NodeDeregister(node.id(), evals))
                .thenApply(result -> nodeUpdated(result, evals));
    }

    /** Nomad's {@code AllocStopResponse}. */
    record AllocStopResponse(String evalId, long index) {}

    /** Nomad's alloc stop: the allocation is marked to migrate and its job re-evaluated, which replaces it. */
    private CompletionStage<ApiResponse> stopAlloc(ApiRequest r) {
        Allocation alloc = store.snapshot().get(NomadTables.ALLOCS, r.pathParam("id"))
                .orElseThrow(() -> new CaravanException(ErrorCode.NOT_FOUND, "alloc not found"));
        if (alloc.job() == null) {
            throw new CaravanException(ErrorCode.NOT_FOUND, "job not found");
        }
        boolean noShutdownDelay = flag(r, "no_shutdown_delay");
        DesiredTransition t = alloc.desiredTransition();
        DesiredTransition migrate = new DesiredTransition(true, t.reschedule(), t.forceReschedule(),
                noShutdownDelay ? Boolean.TRUE : t.noShutdownDelay(), t.migrateDisablePlacement());
        Evaluation eval = Evaluation.forJob(UUID.randomUUID().toString(), alloc.job(),
                Evaluation.TRIGGER_ALLOC_STOP, nanos(clock.instant()));
        return writes.submit(new Command.AllocTransitionUpdate(Map.of(alloc.id(), migrate), List.of(eval)))
                .thenApply(result -> ApiResponse.ok(new AllocStopResponse(eval.id(), result.index()),
                        QueryMeta.index(result.index())));
    }

    /** Nomad's {@code SchedulerConfigurationResponse}. */
    record SchedulerConfigResponse(SchedulerConfig schedulerConfig, long index, long lastContact,
                                   boolean knownLeader) {}

    /** Nomad's {@code SchedulerSetConfigurationResponse}. */
    record SchedulerSetConfigResponse(boolean updated, long index) {}

    private CompletionStage<ApiResponse> setSchedulerConfig(ApiRequest r) {
        SchedulerConfig config = r.body(SchedulerConfig.class);
        if (config == null) {
            throw CaravanException.badRequest("missing scheduler configuration");
        }
        if (!config.schedulerAlgorithm().equals("binpack") && !config.schedulerAlgorithm().equals("spread")) {
            throw CaravanException.invalid("SchedulerAlgorithm",
                    "invalid scheduler algorithm \"" + config.schedulerAlgorithm() + "\": must be binpack or spread");
        }
        // Nomad's ?cas=<index>: written only if the stored configuration's ModifyIndex is still that index.
        java.util.Optional<String> cas = r.query("cas");
        long expected = 0;
        if (cas.isPresent()) {
            try {
                expected = Long.parseLong(cas.get());
            } catch (NumberFormatException e) {
                throw CaravanException.invalid("cas", "must be an index, got \"" + cas.get() + "\"");
            }
        }
        return writes.submit(new Command.SchedulerConfigUpdate(config, cas.isPresent(), expected))
                .thenApply(result -> ApiResponse.ok(new SchedulerSetConfigResponse(true, result.index()),
                        QueryMeta.index(result.index())))
                .exceptionally(error -> {
                    Throwable cause = error instanceof java.util.concurrent.CompletionException ? error.getCause()
                            : error;
                    if (cause instanceof CaravanException ce && ce.code() == ErrorCode.CONFLICT) {
                        long current = store.snapshot().tableIndex(NomadTables.SCHEDULER_CONFIG.name());
                        return ApiResponse.ok(new SchedulerSetConfigResponse(false, current),
                                QueryMeta.index(current));
                    }
                    throw cause instanceof RuntimeException re ? re : new java.util.concurrent.CompletionException(cause);
                });
    }

    private Node node(String id) {
        return store.snapshot().get(NomadTables.NODES, id)
                .orElseThrow(() -> new CaravanException(ErrorCode.NOT_FOUND, "node not found"));
    }

    private List<Evaluation> evalsFor(Node node) {
        return evalsFor(node, Evaluation.TRIGGER_NODE_UPDATE);
    }

    private List<Evaluation> evalsFor(Node node, String trigger) {
        StateSnapshot snapshot = store.snapshot();
        return NodeEvals.forNode(snapshot, node.id(), node.modifyIndex(), trigger,
                nanos(clock.instant()));
    }

    private static ApiResponse nodeUpdated(Command.Result result, List<Evaluation> evals) {
        return ApiResponse.ok(new NodeUpdateResponse(evals.stream().map(Evaluation::id).toList(),
                evals.isEmpty() ? 0 : result.index(), result.index(), result.index()), QueryMeta.index(result.index()));
    }

    private static long nanos(Instant t) {
        return t.getEpochSecond() * 1_000_000_000L + t.getNano();
    }
}
