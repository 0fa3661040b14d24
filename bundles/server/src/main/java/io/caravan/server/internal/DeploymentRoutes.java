package io.caravan.server.internal;

import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Predicate;

import com.fasterxml.jackson.databind.node.NullNode;
import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.AclRule;
import io.caravan.api.acl.Capability;
import io.caravan.api.model.AllocListStub;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Deployment;
import io.caravan.api.model.DeploymentState;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiRequest;
import io.caravan.http.ApiResponse;
import io.caravan.http.ApiRoutes;
import io.caravan.http.Page;
import io.caravan.http.QueryOptions;
import io.caravan.http.filter.Filter;
import io.caravan.api.json.NomadJson;
import io.caravan.http.QueryMeta;
import io.caravan.http.RouteTable;
import io.caravan.state.Indexed;
import io.caravan.state.StateSnapshot;
import io.caravan.state.StateStore;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;

/**
 * Nomad's deployment endpoints, and the job endpoints about deployments and versions (a job's deployments, its
 * latest, revert, stability). Reads are blocking queries; writes check what Nomad checks against the latest state,
 * then go through the Raft log, where the same checks hold at apply time. A deployment by ID is authorized in its
 * own namespace.
 */
@Component(service = ApiRoutes.class, configurationPid = "io.caravan.server",
        configurationPolicy = ConfigurationPolicy.REQUIRE)
public final class DeploymentRoutes implements ApiRoutes {
    private static final AclRule READ_JOB = AclRule.namespace(Capability.READ_JOB);
    private static final AclRule SUBMIT_JOB = AclRule.namespace(Capability.SUBMIT_JOB);

    static final ApiEndpoint LIST = ApiEndpoint.of("Deployment.List", READ_JOB);
    static final ApiEndpoint GET = ApiEndpoint.of("Deployment.GetDeployment", READ_JOB);
    static final ApiEndpoint ALLOCATIONS = ApiEndpoint.of("Deployment.Allocations", READ_JOB);
    static final ApiEndpoint PROMOTE = ApiEndpoint.of("Deployment.Promote", SUBMIT_JOB);
    static final ApiEndpoint FAIL = ApiEndpoint.of("Deployment.Fail", SUBMIT_JOB);
    static final ApiEndpoint PAUSE = ApiEndpoint.of("Deployment.Pause", SUBMIT_JOB);
    static final ApiEndpoint ALLOC_HEALTH = ApiEndpoint.of("Deployment.SetAllocHealth", SUBMIT_JOB);
    static final ApiEndpoint UNBLOCK = ApiEndpoint.of("Deployment.Unblock", SUBMIT_JOB);
    static final ApiEndpoint JOB_DEPLOYMENTS = ApiEndpoint.of("Job.Deployments", READ_JOB);
    static final ApiEndpoint JOB_LATEST_DEPLOYMENT = ApiEndpoint.of("Job.LatestDeployment", READ_JOB);
    static final ApiEndpoint JOB_REVERT = ApiEndpoint.of("Job.Revert", SUBMIT_JOB);
    static final ApiEndpoint JOB_STABLE = ApiEndpoint.of("Job.Stable", SUBMIT_JOB);
    static final ApiEndpoint JOB_TAG_VERSION = ApiEndpoint.of("Job.TagVersion", SUBMIT_JOB);

    static final StateReads.Namespaced<Deployment> DEPLOYMENTS_READ = new StateReads.Namespaced<>(
            Deployment::namespace, Capability.READ_JOB);

    static final String FAILED_BY_USER = "Deployment marked as failed";
    static final String PAUSED_BY_USER = "Deployment paused by user";

    private final StateStore store;
    private final RaftWrites writes;
    private final StateReads reads;

    @Activate
    public DeploymentRoutes(@Reference ServerState state, @Reference RaftWrites writes) {
        this.store = state.store();
        this.writes = writes;
        this.reads = new StateReads(store, writes);
    }

    /** A reload: nothing here changes live; without this method DS would restart the component on every change. */
    @Modified
    void modified() {
        // nothing to apply
    }

    @Override
    public void register(RouteTable routes) {
        Function<ApiEndpoint, ApiEndpoint> own = e -> e.namespacedBy(this::deploymentNamespace);
        routes.getAsync("/v1/deployments", LIST, this::list)
                .getAsync("/v1/deployment/{id}", own.apply(GET), r -> reads.one(r, NomadTables.DEPLOYMENTS,
                        r.pathParam("id"), "deployment not found", DEPLOYMENTS_READ))
                .getAsync("/v1/deployment/allocations/{id}", own.apply(ALLOCATIONS), this::allocations)
                .writeAsync("/v1/deployment/promote/{id}", own.apply(PROMOTE), this::promote)
                .writeAsync("/v1/deployment/fail/{id}", own.apply(FAIL), this::fail)
                .writeAsync("/v1/deployment/pause/{id}", own.apply(PAUSE), this::pause)
                .writeAsync("/v1/deployment/allocation-health/{id}", own.apply(ALLOC_HEALTH), this::allocHealth)
                .writeAsync("/v1/deployment/unblock/{id}", own.apply(UNBLOCK), this::unblock)
                .getAsync("/v1/job/{id}/deployments", JOB_DEPLOYMENTS, r -> reads.query(r, (s, ws) -> {
                    ws.indexKey(NomadTables.DEPLOYMENTS.name(), "job", jobKey(r));
                    return new Indexed<>(s.byIndex(NomadTables.DEPLOYMENTS, "job", jobKey(r))
                            .sorted(Comparator.comparingLong(Deployment::createIndex).reversed()).toList(),
                            s.tableIndex(NomadTables.DEPLOYMENTS.name()));
                }))
                .getAsync("/v1/job/{id}/deployment", JOB_LATEST_DEPLOYMENT, r -> reads.query(r, (s, ws) -> {
                    ws.indexKey(NomadTables.DEPLOYMENTS.name(), "job", jobKey(r));
                    Object latest = SnapshotSchedulerState.latestDeployment(s, r.options().namespace(),
                            r.pathParam("id")).map(d -> (Object) d).orElse(NullNode.getInstance());
                    return new Indexed<>(latest, s.tableIndex(NomadTables.DEPLOYMENTS.name()));
                }))
                .writeAsync("/v1/job/{id}/revert", JOB_REVERT, this::revert)
                .writeAsync("/v1/job/{id}/stable", JOB_STABLE, this::stable)
                .writeAsync("/v1/job/{id}/versions/{tag}/tag", JOB_TAG_VERSION, r -> tag(r, false))
                .deleteAsync("/v1/job/{id}/versions/{tag}/tag", JOB_TAG_VERSION, r -> tag(r, true));
    }

    /** A deployment's own namespace, for the rule; null for one that does not exist (the handler answers 404). */
    private String deploymentNamespace(ApiRequest r) {
        return store.snapshot().get(NomadTables.DEPLOYMENTS, r.pathParam("id")).map(Deployment::namespace)
                .orElse(null);
    }

    private static String jobKey(ApiRequest r) {
        return NomadTables.key(r.options().namespace(), r.pathParam("id"));
    }

    // ---- reads --------------------------------------------------------------------------------------------------

    private CompletionStage<ApiResponse> allocations(ApiRequest r) {
        String id = r.pathParam("id");
        return reads.query(r, (s, ws) -> {
            ws.key(NomadTables.DEPLOYMENTS.name(), id);
            Deployment d = s.get(NomadTables.DEPLOYMENTS, id).orElse(null);
            if (d == null) {
                return new Indexed<>(null, s.tableIndex(NomadTables.DEPLOYMENTS.name()));
            }
            String job = NomadTables.key(d.namespace(), d.jobId());
            ws.indexKey(NomadTables.ALLOCS.name(), "job", job);
            return new Indexed<>(s.byIndex(NomadTables.ALLOCS, "job", job).filter(a -> id.equals(a.deploymentId()))
                    .map(a -> AllocListStub.of(a, false)).toList(), s.tableIndex(NomadTables.ALLOCS.name()));
        }).thenApply(answer -> {
            if (answer.body() == null) {
                throw new CaravanException(ErrorCode.NOT_FOUND, "deployment not found");
            }
            return answer;
        });
    }

    // ---- deployment writes ----------------------------------------------------------------------------------------

    /** Nomad's {@code DeploymentPromoteRequest}. */
    record PromoteRequest(String deploymentId, boolean all, List<String> groups) {}

    /** Nomad's {@code DeploymentPauseRequest}. */
    record PauseRequest(String deploymentId, boolean pause) {}

    /** Nomad's {@code DeploymentAllocHealthRequest}. */
    record AllocHealthRequest(String deploymentId, List<String> healthyAllocationIds,
                              List<String> unhealthyAllocationIds) {
        AllocHealthRequest {
            healthyAllocationIds = healthyAllocationIds == null ? List.of() : healthyAllocationIds;
            unhealthyAllocationIds = unhealthyAllocationIds == null ? List.of() : unhealthyAllocationIds;
        }
    }

    /** Nomad's {@code DeploymentUpdateResponse}; {@code RevertedJobVersion} is null unless the job was reverted. */
    record UpdateResponse(String evalId, long evalCreateIndex, long deploymentModifyIndex, Long revertedJobVersion,
                          long index) {}

    /** The deployment named by the path, active, or Nomad's error for {@code terminalError}. */
    private Deployment active(ApiRequest r, String terminalError) {
        Deployment d = store.snapshot().get(NomadTables.DEPLOYMENTS, r.pathParam("id"))
                .orElseThrow(() -> new CaravanException(ErrorCode.NOT_FOUND, "deployment not found"));
        if (!d.active()) {
            throw CaravanException.badRequest(terminalError);
        }
        return d;
    }

    private static Job jobOf(StateSnapshot s, Deployment d) {
        return s.get(NomadTables.JOBS, NomadTables.key(d.namespace(), d.jobId()))
                .orElseThrow(() -> new CaravanException(ErrorCode.NOT_FOUND, "job not found"));
    }

    private static long now() {
        return System.currentTimeMillis() * 1_000_000L;
    }

    private CompletionStage<ApiResponse> submit(Command command, Evaluation eval, Long reverted) {
        return writes.submit(command).thenApply(result -> ApiResponse.ok(new UpdateResponse(
                eval == null ? "" : eval.id(), eval == null ? 0 : result.evalCreateIndex(), result.index(), reverted,
                result.index()), QueryMeta.index(result.index())));
    }

    private CompletionStage<ApiResponse> promote(ApiRequest r) {
        PromoteRequest req = r.body(PromoteRequest.class);
        List<String> groups = req.groups() == null ? List.of() : req.groups();
        if (!req.all() && groups.isEmpty()) {
            throw CaravanException.invalid("Groups", "must specify All or at least one task group to promote");
        }
        Deployment d = active(r, "can't promote terminal deployment");
        Evaluation eval = DeploymentWatcher.eval(jobOf(store.snapshot(), d), d, () -> UUID.randomUUID().toString(),
                now());
        return submit(new Command.DeploymentPromotion(d.id(), req.all(), groups, eval, now()), eval, null);
    }

    private CompletionStage<ApiResponse> fail(ApiRequest r) {
        Deployment d = active(r, "can't fail terminal deployment");
        StateSnapshot s = store.snapshot();
        Job job = jobOf(s, d);
        long now = now();
        Evaluation eval = DeploymentWatcher.eval(job, d, () -> UUID.randomUUID().toString(), now);
        boolean autoRevert = d.taskGroups().values().stream().anyMatch(DeploymentState::autoRevert);
        Command.DeploymentStatusChange change = job.version() == d.jobVersion()
                ? DeploymentWatcher.fail(s, d, job, FAILED_BY_USER, autoRevert, eval, now)
                : new Command.DeploymentStatusChange(d.id(), Deployment.STATUS_FAILED, FAILED_BY_USER, eval, null,
                now);
        Long reverted = change.revertTo() == null ? null : change.revertTo().version();
        return submit(change, eval, reverted);
    }

    private CompletionStage<ApiResponse> pause(ApiRequest r) {
        PauseRequest req = r.body(PauseRequest.class);
        Deployment d = active(r, req.pause() ? "can't pause terminal deployment" : "can't resume terminal deployment");
        long now = now();
        Evaluation eval = DeploymentWatcher.eval(jobOf(store.snapshot(), d), d, () -> UUID.randomUUID().toString(),
                now);
        Command change = req.pause()
                ? new Command.DeploymentStatusChange(d.id(), Deployment.STATUS_PAUSED, PAUSED_BY_USER, eval, null, now)
                : new Command.DeploymentStatusChange(d.id(), Deployment.STATUS_RUNNING,
                DeploymentWatcher.runningDescription(d), eval, null, now);
        return submit(change, eval, null);
    }

    private CompletionStage<ApiResponse> allocHealth(ApiRequest r) {
        AllocHealthRequest req = r.body(AllocHealthRequest.class);
        if (req.healthyAllocationIds().isEmpty() && req.unhealthyAllocationIds().isEmpty()) {
            throw CaravanException.invalid("HealthyAllocationIDs",
                    "must specify at least one healthy/unhealthy allocation ID");
        }
        Deployment d = active(r, "can't set health of allocations for a terminal deployment");
        StateSnapshot s = store.snapshot();
        for (String id : concat(req.healthyAllocationIds(), req.unhealthyAllocationIds())) {
            Allocation a = s.get(NomadTables.ALLOCS, id).orElse(null);
            if (a == null) {
                throw CaravanException.badRequest("unknown alloc \"" + id + "\"");
            }
            if (!d.id().equals(a.deploymentId())) {
                throw CaravanException.badRequest("allocation \"" + id + "\" is not part of deployment \"" + d.id()
                        + "\"");
            }
        }
        long now = now();
        Evaluation eval = DeploymentWatcher.eval(jobOf(s, d), d, () -> UUID.randomUUID().toString(), now);
        return submit(new Command.DeploymentAllocHealth(d.id(), req.healthyAllocationIds(),
                req.unhealthyAllocationIds(), eval, now), eval, null);
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new java.util.ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    /** Nomad's order for deployments: by create index (then ID), its {@code next_token} being "index.ID". */
    private static final Comparator<Deployment> CREATED = Comparator.comparingLong(Deployment::createIndex)
            .thenComparing(Deployment::id);

    /** {@code /v1/deployments}: ID prefix, namespace, filter and ACL as the other lists; paged in creation order. */
    private CompletionStage<ApiResponse> list(ApiRequest r) {
        QueryOptions o = r.options();
        Filter filter = o.filter().isEmpty() ? null : Filter.parse(o.filter());
        Predicate<Deployment> visible = DEPLOYMENTS_READ.visibleTo(r);
        Comparator<Deployment> order = o.reverse() ? CREATED.reversed() : CREATED;
        Predicate<Deployment> fromToken = o.nextToken().isEmpty() ? d -> true : fromToken(o.nextToken(), order);
        return reads.indexed(r, (s, ws) -> {
            ws.table(NomadTables.DEPLOYMENTS.name());
            Page<Deployment> page = Page.of(s.prefix(NomadTables.DEPLOYMENTS, o.prefix()).sorted(order)
                            .filter(fromToken).iterator(),
                    d -> visible.test(d) && (filter == null || filter.matches(NomadJson.mapper().valueToTree(d))),
                    d -> d.createIndex() + "." + d.id(), o.perPage());
            return new Indexed<>(page, s.tableIndex(NomadTables.DEPLOYMENTS.name()));
        }).thenApply(result -> ApiResponse.ok(result.value().items(),
                reads.meta(result.index(), result.value().nextToken())));
    }

    /** Rows at or after the token "createIndex.ID" in {@code order}; a token of another shape is a 400. */
    private static Predicate<Deployment> fromToken(String token, Comparator<Deployment> order) {
        int dot = token.indexOf('.');
        long index;
        try {
            index = Long.parseLong(token.substring(0, Math.max(0, dot)));
        } catch (NumberFormatException e) {
            throw CaravanException.invalid("next_token", "expected <create index>.<ID>, got \"" + token + "\"");
        }
        Deployment at = new Deployment(token.substring(dot + 1), null, null, 0, 0, 0, 0, false, java.util.Map.of(),
                null, null, 0, index, 0, 0, 0);
        return d -> order.compare(d, at) >= 0;
    }

    /** Only multiregion deployments are ever blocked, and Caravan has none: Nomad's errors for everything else. */
    private CompletionStage<ApiResponse> unblock(ApiRequest r) {
        active(r, "can't unblock terminal deployment");
        throw CaravanException.badRequest("can't unblock running deployment");
    }

    // ---- job versions -------------------------------------------------------------------------------------------

    /** Nomad's {@code JobRevertRequest}; {@code EnforcePriorVersion} is null when not enforced. */
    record RevertRequest(String jobId, Long jobVersion, Long enforcePriorVersion, String consulToken,
                         String vaultToken) {}

    /** Nomad's {@code JobStabilityRequest}. */
    record StableRequest(String jobId, Long jobVersion, boolean stable) {}

    /** Nomad's {@code JobStabilityResponse}. */
    record StableResponse(long index) {}

    /** Nomad's {@code JobTagRequest}: the version to tag (null: the latest) and a description. */
    record TagRequest(String jobId, String name, Long version, String description) {}

    /** Nomad's {@code JobTagResponse}. */
    record TagResponse(String name, String description, long taggedTime, long index) {}

    private CompletionStage<ApiResponse> tag(ApiRequest r, boolean unset) {
        String name = r.pathParam("tag");
        TagRequest req = unset ? new TagRequest(null, null, null, null) : r.body(TagRequest.class);
        sameJob(r, req.jobId());
        if (req.name() != null && !req.name().isEmpty() && !req.name().equals(name)) {
            throw CaravanException.invalid("Name", "tag name does not match the path's \"" + name + "\"");
        }
        if (req.version() != null && req.version() < 0) {
            throw CaravanException.invalid("Version", "must not be negative");
        }
        long now = now();
        return writes.submit(new Command.JobVersionTag(r.options().namespace(), r.pathParam("id"), name,
                        req.version(), req.description(), now, unset))
                .thenApply(result -> ApiResponse.ok(new TagResponse(name, req.description() == null ? ""
                        : req.description(), unset ? 0 : now, result.index()), QueryMeta.index(result.index())));
    }

    /** The body's JobID: the path's when missing, a 400 when it names another job. */
    private static void sameJob(ApiRequest r, String bodyJobId) {
        if (bodyJobId != null && !bodyJobId.isEmpty() && !bodyJobId.equals(r.pathParam("id"))) {
            throw CaravanException.badRequest("Job ID does not match");
        }
    }

    private CompletionStage<ApiResponse> revert(ApiRequest r) {
        RevertRequest req = r.body(RevertRequest.class);
        sameJob(r, req.jobId());
        if (req.jobVersion() == null) {
            throw CaravanException.invalid("JobVersion", "missing job version to revert to");
        }
        if (req.consulToken() != null && !req.consulToken().isEmpty()
                || req.vaultToken() != null && !req.vaultToken().isEmpty()) {
            throw CaravanException.invalid(req.consulToken() != null && !req.consulToken().isEmpty()
                    ? "ConsulToken" : "VaultToken", "there is no Consul or Vault integration");
        }
        String ns = r.options().namespace();
        String id = r.pathParam("id");
        StateSnapshot s = store.snapshot();
        Job current = s.get(NomadTables.JOBS, NomadTables.key(ns, id))
                .orElseThrow(() -> new CaravanException(ErrorCode.NOT_FOUND, "job not found"));
        if (req.enforcePriorVersion() != null
                && current.version().longValue() != req.enforcePriorVersion().longValue()) {
            throw CaravanException.badRequest("Current job has version " + current.version()
                    + "; enforcing version " + req.enforcePriorVersion());
        }
        if (current.version() == req.jobVersion().longValue()) {
            throw CaravanException.badRequest("can't revert to current version");
        }
        Job target = s.get(NomadTables.JOB_VERSIONS, NomadTables.key(ns, id) + "\0"
                        + String.format("%020d", req.jobVersion()))
                .orElseThrow(() -> new CaravanException(ErrorCode.NOT_FOUND, "job \"" + id + "\" in namespace \""
                        + ns + "\" at version " + req.jobVersion() + " not found"));
        long now = now();
        // The old spec registered again, as a new version; only if nobody changed the job meanwhile.
        // A tag names one version: the copy starts untagged.
        Job job = target.toBuilder().versionTag(null).build().withStable(false).withStop(false).withSubmitTime(now);
        Evaluation eval = Evaluation.forJob(UUID.randomUUID().toString(), job, Evaluation.TRIGGER_JOB_REGISTER, now);
        return writes.submit(new Command.JobRegister(job, eval, true, current.jobModifyIndex())).thenApply(result ->
                ApiResponse.ok(new JobRoutes.RegisterResponse(eval.id(), result.evalCreateIndex(),
                        result.jobModifyIndex(), "", result.index(), 0, true), QueryMeta.index(result.index())));
    }

    private CompletionStage<ApiResponse> stable(ApiRequest r) {
        StableRequest req = r.body(StableRequest.class);
        sameJob(r, req.jobId());
        if (req.jobVersion() == null) {
            throw CaravanException.invalid("JobVersion", "missing job version");
        }
        String ns = r.options().namespace();
        if (store.snapshot().get(NomadTables.JOBS, NomadTables.key(ns, r.pathParam("id"))).isEmpty()) {
            throw new CaravanException(ErrorCode.NOT_FOUND, "job not found");
        }
        return writes.submit(new Command.JobStability(ns, r.pathParam("id"), req.jobVersion(), req.stable()))
                .thenApply(result -> ApiResponse.ok(new StableResponse(result.index()),
                        QueryMeta.index(result.index())));
    }
}
