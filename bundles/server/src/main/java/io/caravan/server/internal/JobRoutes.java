package io.caravan.server.internal;

import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;
import java.util.function.Predicate;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.agent.AgentInfo;
import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.Acl;
import io.caravan.api.acl.AclRule;
import io.caravan.api.acl.Capability;
import io.caravan.api.json.NomadJson;
import io.caravan.api.model.AllocListStub;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.api.model.JobListStub;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiRequest;
import io.caravan.http.ApiResponse;
import io.caravan.http.ApiRoutes;
import io.caravan.http.Page;
import io.caravan.http.QueryMeta;
import io.caravan.http.QueryOptions;
import io.caravan.http.RouteTable;
import io.caravan.http.filter.Filter;
import io.caravan.state.Indexed;
import io.caravan.state.StateSnapshot;
import io.caravan.state.StateStore;
import io.caravan.state.TableSpec;
import io.caravan.state.WatchSet;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;

/**
 * Nomad's jobs and evaluations endpoints. Reads are blocking queries on the state store (no thread waits); writes
 * build a command and append it through the Raft log, answering once it is applied here.
 */
@Component(service = ApiRoutes.class, configurationPid = "io.caravan.server",
        configurationPolicy = ConfigurationPolicy.REQUIRE)
public final class JobRoutes implements ApiRoutes {
    // ---- the endpoints: Nomad's names and the ACL rule each checks ----------------------------------------------
    private static final AclRule READ_JOB = AclRule.namespace(Capability.READ_JOB);
    private static final AclRule SUBMIT_JOB = AclRule.namespace(Capability.SUBMIT_JOB);

    static final ApiEndpoint LIST = ApiEndpoint.of("Job.List", AclRule.namespace(Capability.LIST_JOBS));
    static final ApiEndpoint GET = ApiEndpoint.of("Job.GetJob", READ_JOB);
    static final ApiEndpoint VERSIONS = ApiEndpoint.of("Job.GetJobVersions", READ_JOB);
    static final ApiEndpoint SUMMARY = ApiEndpoint.of("Job.Summary", READ_JOB);
    static final ApiEndpoint ALLOCATIONS = ApiEndpoint.of("Job.Allocations", READ_JOB);
    static final ApiEndpoint EVALUATIONS = ApiEndpoint.of("Job.Evaluations", READ_JOB);
    static final ApiEndpoint SCALE_STATUS = ApiEndpoint.of("Job.ScaleStatus",
            AclRule.anyOf(AclRule.namespace(Capability.READ_JOB_SCALING), READ_JOB));
    /** Register, plan and validate: in the namespace the body's job resolves to ({@link #inJobNamespace}). */
    static final ApiEndpoint REGISTER = bodyNamespaced("Job.Register", SUBMIT_JOB);
    static final ApiEndpoint PLAN = bodyNamespaced("Job.Plan", SUBMIT_JOB);
    static final ApiEndpoint VALIDATE = bodyNamespaced("Job.Validate", READ_JOB);
    static final ApiEndpoint PARSE = ApiEndpoint.of("Job.Parse",
            AclRule.anyOf(AclRule.namespace(Capability.PARSE_JOB), SUBMIT_JOB)).agentLocal();   // reads no state
    static final ApiEndpoint DEREGISTER = ApiEndpoint.of("Job.Deregister", SUBMIT_JOB);
    static final ApiEndpoint SCALE = ApiEndpoint.of("Job.Scale",
            AclRule.anyOf(AclRule.namespace(Capability.SCALE_JOB), SUBMIT_JOB));
    static final ApiEndpoint EVAL_LIST = ApiEndpoint.of("Eval.List", READ_JOB);
    /** An evaluation by ID: in the evaluation's own namespace ({@link #evalNamespace}). */
    static final ApiEndpoint EVAL_GET = ApiEndpoint.of("Eval.GetEval", READ_JOB);
    static final ApiEndpoint EVAL_ALLOCATIONS = ApiEndpoint.of("Eval.Allocations", READ_JOB);

    /** How list rows and objects by ID name their namespace, and what reading them takes. */
    static final StateReads.Namespaced<Job> JOBS_LIST = new StateReads.Namespaced<>(Job::namespace,
            Capability.LIST_JOBS);
    static final StateReads.Namespaced<Evaluation> EVALS_READ = new StateReads.Namespaced<>(Evaluation::namespace,
            Capability.READ_JOB);
    static final StateReads.Namespaced<Allocation> ALLOCS_READ = new StateReads.Namespaced<>(Allocation::namespace,
            Capability.READ_JOB);

    /**
     * An endpoint whose namespace is in its body: the dispatcher checks the query's namespace when one is given, else
     * that the rule holds in some namespace; the handler then checks the job's ({@link #inJobNamespace}).
     */
    private static ApiEndpoint bodyNamespaced(String name, AclRule rule) {
        return ApiEndpoint.of(name, rule).namespacedBy(r -> r.query("namespace").filter(ns -> !ns.isEmpty())
                .orElse("*"));
    }

    private final StateStore store;
    private final AgentInfo agent;
    private final RaftWrites writes;
    private final StateReads reads;
    /** The server block's job limits; a reload changes them without re-registering the routes. */
    private volatile JobLimits limits;

    @Activate
    public JobRoutes(@Reference ServerState state, @Reference AgentInfo agent, @Reference RaftWrites writes,
                     ServerSchedulingConfig config) {
        this.store = state.store();
        this.agent = agent;
        this.writes = writes;
        this.reads = new StateReads(store, writes);
        modified(config);
    }

    @Modified
    void modified(ServerSchedulingConfig config) {
        // job_max_source_size is reported by the agent's schema (an unsupported key); job_tracked_versions is CoreGc's.
        this.limits = JobLimits.of(config);
    }

    @Override
    public void register(RouteTable routes) {
        ApiEndpoint evalGet = EVAL_GET.namespacedBy(this::evalNamespace);
        ApiEndpoint evalAllocations = EVAL_ALLOCATIONS.namespacedBy(this::evalNamespace);
        routes.getAsync("/v1/jobs", LIST, this::listJobs)
                .writeAsync("/v1/jobs", REGISTER, r -> registerJob(r, null))
                .getAsync("/v1/job/{id}", GET, r -> reads.one(r, NomadTables.JOBS, jobKey(r), "job not found")
                        .thenApply(ChildJobRoutes::payloadDecoded))
                .writeAsync("/v1/job/{id}", REGISTER, r -> registerJob(r, r.pathParam("id")))
                .deleteAsync("/v1/job/{id}", DEREGISTER, this::deregisterJob)
                .write("/v1/job/{id}/plan", PLAN, this::planJob)
                .writeAsync("/v1/job/{id}/scale", SCALE, this::scaleJob)
                .getAsync("/v1/job/{id}/scale", SCALE_STATUS, r -> reads.query(r, (s, ws) -> {
                    ws.key(NomadTables.JOBS.name(), jobKey(r));
                    ws.indexKey(NomadTables.ALLOCS.name(), "job", jobKey(r));
                    ws.key(NomadTables.SCALING_EVENTS.name(), jobKey(r));
                    Job job = s.get(NomadTables.JOBS, jobKey(r)).orElse(null);
                    ws.indexKey(NomadTables.DEPLOYMENTS.name(), "job", jobKey(r));
                    return new Indexed<>(job == null ? null : ScaleStatus.of(job,
                            s.byIndex(NomadTables.ALLOCS, "job", jobKey(r)).toList(),
                            s.get(NomadTables.SCALING_EVENTS, jobKey(r)).orElse(null),
                            SnapshotSchedulerState.latestDeployment(s, job.namespace(), job.id()).orElse(null)),
                            Math.max(Math.max(s.tableIndex(NomadTables.JOBS.name()),
                                    s.tableIndex(NomadTables.ALLOCS.name())),
                                    Math.max(s.tableIndex(NomadTables.SCALING_EVENTS.name()),
                                            s.tableIndex(NomadTables.DEPLOYMENTS.name()))));
                }).thenApply(answer -> {
                    if (answer.body() == null) {
                        throw new CaravanException(ErrorCode.NOT_FOUND, "job not found");
                    }
                    return answer;
                }))
                .getAsync("/v1/job/{id}/summary", SUMMARY, r -> reads.one(r, NomadTables.JOB_SUMMARIES, jobKey(r),
                        "job not found"))
                .getAsync("/v1/job/{id}/versions", VERSIONS, r -> reads.query(r, (s, ws) -> {
                    ws.prefix(NomadTables.JOB_VERSIONS.name(), jobKey(r) + "\0");
                    List<Job> versions = s.reversed(NomadTables.JOB_VERSIONS)
                            .filter(j -> NomadTables.key(j.namespace(), j.id()).equals(jobKey(r))).toList();
                    return new Indexed<>(new Versions(versions, r.query("diffs")
                            .map(d -> d.isEmpty() || d.equals("true")).orElse(false) ? diffs(versions) : List.of()),
                            s.tableIndex(NomadTables.JOB_VERSIONS.name()));
                }))
                .getAsync("/v1/job/{id}/evaluations", EVALUATIONS, r -> reads.query(r, (s, ws) -> {
                    ws.indexKey(NomadTables.EVALS.name(), "job", jobKey(r));
                    return new Indexed<>(s.byIndex(NomadTables.EVALS, "job", jobKey(r)).toList(),
                            s.tableIndex(NomadTables.EVALS.name()));
                }))
                .getAsync("/v1/job/{id}/allocations", ALLOCATIONS, r -> reads.query(r, (s, ws) -> {
                    ws.indexKey(NomadTables.ALLOCS.name(), "job", jobKey(r));
                    return new Indexed<>(s.byIndex(NomadTables.ALLOCS, "job", jobKey(r))
                            .map(a -> AllocListStub.of(a, false)).toList(),
                            s.tableIndex(NomadTables.ALLOCS.name()));
                }))
                // GET /v1/evaluations: EvalRoutes, with the count and the delete.
                .getAsync("/v1/evaluation/{id}", evalGet, r -> reads.one(r, NomadTables.EVALS, r.pathParam("id"),
                        "eval not found", EVALS_READ))
                .getAsync("/v1/evaluation/{id}/allocations", evalAllocations, r -> reads.query(r, (s, ws) -> {
                    ws.indexKey(NomadTables.ALLOCS.name(), "eval", r.pathParam("id"));
                    Predicate<Allocation> granted = ALLOCS_READ.grantedTo(r);
                    return new Indexed<>(s.byIndex(NomadTables.ALLOCS, "eval", r.pathParam("id")).filter(granted)
                            .map(a -> AllocListStub.of(a, false)).toList(),
                            s.tableIndex(NomadTables.ALLOCS.name()));
                }))
                .write("/v1/jobs/parse", PARSE, this::parse)
                .write("/v1/validate/job", VALIDATE, this::validate)
                // A child job's ID has a "/" that older clients (the Nomad Java SDK) send unescaped: Nomad reads
                // whatever no suffix route claims as the job's ID.
                .getAsync("/v1/job/{id*}", GET, r -> reads.one(r, NomadTables.JOBS, jobKey(r), "job not found")
                        .thenApply(ChildJobRoutes::payloadDecoded))
                .writeAsync("/v1/job/{id*}", REGISTER, r -> registerJob(r, r.pathParam("id")))
                .deleteAsync("/v1/job/{id*}", DEREGISTER, this::deregisterJob);
    }

    /** An evaluation's own namespace, for the rule; null for one that does not exist (the handler answers 404). */
    private String evalNamespace(ApiRequest r) {
        return store.snapshot().get(NomadTables.EVALS, r.pathParam("id")).map(Evaluation::namespace).orElse(null);
    }

    /** Whether the caller holds any capability in {@code namespace}: what listing or reading it takes, as in Nomad. */
    static boolean anyCapability(Acl acl, String namespace) {
        for (String capability : Capability.ALL) {
            if (!Capability.DENY.equals(capability) && acl.allowNamespace(namespace, capability)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The namespace a register, plan or validate acts in, as Nomad resolves it: the {@code namespace} query parameter,
     * else the body's {@code Namespace}, else the job's own, else {@code default}.
     */
    static String jobNamespace(ApiRequest r, JsonNode body) {
        Optional<String> query = r.query("namespace").filter(ns -> !ns.isEmpty());
        if (query.isPresent()) {
            return query.get();
        }
        JsonNode job = body.has("Job") ? body.get("Job") : body;
        for (JsonNode named : new JsonNode[] {body.path("Namespace"), job.path("Namespace")}) {
            if (named.isTextual() && !named.asText().isEmpty()) {
                return named.asText();
            }
        }
        return QueryOptions.DEFAULT_NAMESPACE;
    }

    /**
     * Puts the body's job in the namespace it acts in ({@link #jobNamespace}) and checks the endpoint's rule there:
     * the dispatcher, which does not read bodies, could only check it in some namespace when the query names none.
     */
    private static JsonNode inJobNamespace(ApiRequest r, ApiEndpoint endpoint, JsonNode body) {
        String namespace = jobNamespace(r, body);
        if (namespace.equals("*")) {
            throw CaravanException.invalid("Namespace", "a job is written to one namespace, not \"*\"");
        }
        if (!endpoint.rule().allows(r.identity(), namespace)) {
            throw new CaravanException(ErrorCode.PERMISSION_DENIED, "Permission denied");
        }
        if ((body.has("Job") ? body.get("Job") : body) instanceof ObjectNode job) {
            job.put("Namespace", namespace);
        }
        return body;
    }

    /**
     * On {@code /v1/job/:id}, the body's job must be that job (Nomad's texts): otherwise a write to one URL would
     * register another job. Checked before anything else of the body, as Nomad does.
     */
    private static void requireIdOfPath(String id, JsonNode body, String mismatch) {
        JsonNode named = (body.has("Job") ? body.get("Job") : body).path("ID");
        if (id != null && named.isTextual() && !named.asText().equals(id)) {
            throw CaravanException.badRequest(mismatch);
        }
    }

    /** Nomad's {@code POST /v1/jobs/parse} request. */
    record ParseRequest(String jobHcl, String variables, boolean canonicalize, @com.fasterxml.jackson.annotation.JsonProperty("HCLv1") boolean hclV1) {}

    /**
     * HCL2 to the API's Job JSON, server-side as Nomad does it; {@code file()} is off (the server must not read
     * its own files for a client). {@code Variables} is a var-file's content.
     */
    private ApiResponse parse(ApiRequest r) throws java.io.IOException {
        ParseRequest req = r.body(ParseRequest.class);
        if (req.jobHcl() == null || req.jobHcl().isBlank()) {
            throw CaravanException.invalid("JobHCL", "missing job specification");
        }
        if (req.hclV1()) {
            throw CaravanException.invalid("HCLv1", "HCL1 job specifications are not supported; write HCL2");
        }
        io.caravan.jobspec.ParseOptions options = io.caravan.jobspec.ParseOptions.defaults().withFileFunctions(false);
        java.nio.file.Path varFile = null;
        try {
            if (req.variables() != null && !req.variables().isBlank()) {
                varFile = java.nio.file.Files.createTempFile("caravan-vars-", ".hcl");
                java.nio.file.Files.writeString(varFile, req.variables());
                options = options.withVarFile(varFile);
            }
            com.fasterxml.jackson.databind.node.ObjectNode job =
                    io.caravan.jobspec.JobspecParser.parse(req.jobHcl(), "input.hcl", options).job();
            if (req.canonicalize()) {
                Jobs.defaults(job, agent.region(), limits);
            }
            return ApiResponse.ok(job);
        } catch (io.caravan.jobspec.JobspecException e) {
            throw CaravanException.badRequest(e.getMessage());
        } finally {
            if (varFile != null) {
                java.nio.file.Files.deleteIfExists(varFile);
            }
        }
    }

    /** Nomad's {@code PUT /v1/validate/job}: 200 with the problems listed, not an error status. */
    private ApiResponse validate(ApiRequest r) {
        JsonNode body = inJobNamespace(r, VALIDATE, r.body(JsonNode.class));
        JsonNode node = body.has("Job") ? body.get("Job") : body;
        if (!(node instanceof com.fasterxml.jackson.databind.node.ObjectNode job)) {
            throw CaravanException.invalid("Job", "missing job");
        }
        com.fasterxml.jackson.databind.node.ObjectNode copy = job.deepCopy();
        JobLimits current = limits;
        Jobs.defaults(copy, agent.region(), current);
        List<String> problems = Jobs.validate(copy, current);
        return ApiResponse.ok(new ValidateResponse(false, problems, problems.isEmpty() ? "" : Jobs.summary(problems),
                Jobs.warnings(body)));
    }

    /** Nomad's JobValidateResponse. */
    record ValidateResponse(boolean driverConfigValidated, List<String> validationErrors, String error,
                            String warnings) {}

    /** Nomad's {@code Diffs}: each version against the one before it, newest first (one fewer than versions). */
    private static List<Object> diffs(List<Job> newestFirst) {
        List<Object> out = new java.util.ArrayList<>();
        for (int i = 0; i + 1 < newestFirst.size(); i++) {
            out.add(JobDiffs.diff(newestFirst.get(i + 1), newestFirst.get(i), Map.of()));
        }
        return out;
    }

    /** Nomad's {@code /v1/job/:id/versions} body. */
    record Versions(List<Job> versions, List<Object> diffs) {}

    private static String jobKey(ApiRequest r) {
        return NomadTables.key(r.options().namespace(), r.pathParam("id"));
    }

    // ---- reads ------------------------------------------------------------------------------------------------

    private CompletionStage<ApiResponse> listJobs(ApiRequest r) {
        return reads.list(r, NomadTables.JOBS, JOBS_LIST, (s, job) -> JobListStub.of(job,
                s.get(NomadTables.JOB_SUMMARIES, NomadTables.key(job.namespace(), job.id())).orElse(null)));
    }

    // ---- writes -----------------------------------------------------------------------------------------------

    /** @param pathId the job ID the URL names ({@code /v1/job/:id}); null for {@code /v1/jobs} */
    private CompletionStage<ApiResponse> registerJob(ApiRequest r, String pathId) {
        JsonNode body = inJobNamespace(r, REGISTER, r.body(JsonNode.class));
        requireIdOfPath(pathId, body, "Job ID does not match name");
        Namespaces.require(store.snapshot(), jobNamespace(r, body));
        Job job = Jobs.canonical(body, agent.region(), limits);
        NodePools.requireFor(store.snapshot(), job);
        String warnings = Jobs.warnings(body);
        boolean enforce = body.path("EnforceIndex").asBoolean(false);
        long expected = body.path("JobModifyIndex").asLong(0);
        long now = System.currentTimeMillis() * 1_000_000L;
        Job submitted = job.withSubmitTime(now);
        // Nomad creates no evaluation for a periodic or parameterized parent: only its children are placed.
        Evaluation eval = PeriodicJobs.isParent(submitted) ? null : Evaluation.forJob(UUID.randomUUID().toString(),
                submitted, Evaluation.TRIGGER_JOB_REGISTER, now);
        return writes.submit(new Command.JobRegister(submitted, eval, enforce, expected)).thenApply(result ->
                ApiResponse.ok(new RegisterResponse(eval == null ? "" : eval.id(), result.evalCreateIndex(),
                        result.jobModifyIndex(), warnings, result.index(), 0, true), QueryMeta.index(result.index())));
    }

    /** Nomad's {@code ScalingRequest}: the group to scale and its new count (null: only record an event). */
    record ScaleRequest(Long count, Map<String, String> target, String message, boolean error,
                        boolean policyOverride, Map<String, Object> meta, long jobModifyIndex) {}

    /** Nomad's {@code PUT /v1/job/:id/scale}: the job re-registered with the group's new count. */
    private CompletionStage<ApiResponse> scaleJob(ApiRequest r) {
        ScaleRequest req = r.body(ScaleRequest.class);
        String group = req == null || req.target() == null ? null : req.target().get("Group");
        if (group == null || group.isEmpty()) {
            throw CaravanException.invalid("Target.Group", "missing task group name for scaling action");
        }
        if (req.count() != null && req.count() < 0) {
            throw CaravanException.invalid("Count", "scaling action count can't be negative");
        }
        if (req.count() != null && req.error()) {
            throw CaravanException.invalid("Count", "scaling action should not contain count if error is true");
        }
        var snapshot = store.snapshot();
        Namespaces.require(snapshot, r.options().namespace());
        Job job = snapshot.get(NomadTables.JOBS, jobKey(r)).orElseThrow(() -> new CaravanException(
                ErrorCode.NOT_FOUND, "job \"" + r.pathParam("id") + "\" not found"));
        if (Job.TYPE_SYSTEM.equals(job.type()) && req.count() != null && req.count() > 1) {
            throw CaravanException.badRequest("jobs of type \"system\" can only be scaled to 1 or 0");
        }
        io.caravan.api.model.TaskGroup target = job.taskGroups().stream().filter(g -> g.name().equals(group))
                .findFirst().orElseThrow(() -> CaravanException.invalid("Target.Group",
                        "task group \"" + group + "\" specified for scaling does not exist in job"));
        long now = System.currentTimeMillis() * 1_000_000L;
        int previous = target.count() == null ? 0 : target.count();
        if (req.count() == null) {
            // Only an event (an autoscaler's note or error): recorded, nothing else changes.
            return recordScaling(job, group, new ScalingEvents.ScalingEvent(now, null, previous, req.message(),
                    req.error(), req.meta(), null, 0), "", 0, job.jobModifyIndex());
        }
        checkScalingBounds(target, req.count());
        JobLimits current = limits;
        if (req.count() > current.maxCount()) {
            // Checked before the count becomes an int: a long beyond it would wrap around.
            throw CaravanException.badRequest(Jobs.summary(List.of("Count: task group \"" + group + "\" count "
                    + req.count() + " exceeds the maximum of " + current.maxCount() + " (server job_max_count)")));
        }
        Job scaled = job.toBuilder().taskGroups(job.taskGroups().stream().map(g -> g.name().equals(group)
                ? g.toBuilder().count(req.count().intValue()).build() : g).toList()).build();
        // The scaled job must pass what registering it would (the sum of counts, the group's scaling bounds).
        Jobs.check(NomadJson.mapper().valueToTree(scaled), current);
        Evaluation eval = Evaluation.forJob(UUID.randomUUID().toString(), scaled, Evaluation.TRIGGER_SCALING, now);
        // JobModifyIndex, when given, is Nomad's check-and-set on the job's current version.
        return writes.submit(new Command.JobRegister(scaled.withSubmitTime(now), eval, req.jobModifyIndex() > 0,
                        req.jobModifyIndex()))
                .thenCompose(result -> recordScaling(job, group, new ScalingEvents.ScalingEvent(now, req.count(),
                        previous, req.message(), false, req.meta(), eval.id(), 0), eval.id(),
                        result.evalCreateIndex(), result.jobModifyIndex()));
    }

    /** Nomad's bounds on a scale request: the group's {@code scaling} block's min and max, in Nomad's words. */
    private static void checkScalingBounds(io.caravan.api.model.TaskGroup group, long count) {
        Map<String, Object> scaling = group.scaling();
        if (scaling == null) {
            return;
        }
        if (scaling.get("Min") instanceof Number min && count < min.longValue()) {
            throw CaravanException.badRequest("group count was less than scaling policy minimum: " + count + " < "
                    + min.longValue());
        }
        if (scaling.get("Max") instanceof Number max && max.longValue() < count) {
            throw CaravanException.badRequest("group count was greater than scaling policy maximum: " + count
                    + " > " + max.longValue());
        }
    }

    /** The scale request's event, written after the count it records; answers Nomad's JobRegisterResponse. */
    private CompletionStage<ApiResponse> recordScaling(Job job, String group, ScalingEvents.ScalingEvent event,
                                                       String evalId, long evalCreateIndex, long jobModifyIndex) {
        return writes.submit(new Command.ScalingEventRecord(job.namespace(), job.id(), group, event))
                .thenApply(result -> ApiResponse.ok(new RegisterResponse(evalId, evalCreateIndex, jobModifyIndex,
                        "", result.index(), 0, true), QueryMeta.index(result.index())));
    }

    /** Nomad's {@code JobScaleStatus}. */
    record ScaleStatus(String jobId, String namespace, long jobCreateIndex, long jobModifyIndex, boolean jobStopped,
                       Map<String, GroupScale> taskGroups) {
        /** Placed, Healthy and Unhealthy come from the latest deployment's group when there is one, as in Nomad. */
        static ScaleStatus of(Job job, List<io.caravan.api.model.Allocation> allocs,
                              ScalingEvents.JobScalingEvents events, io.caravan.api.model.Deployment latest) {
            Map<String, GroupScale> groups = new java.util.LinkedHashMap<>();
            for (var g : job.taskGroups()) {
                List<io.caravan.api.model.Allocation> mine = allocs.stream()
                        .filter(a -> g.name().equals(a.taskGroup()) && !a.terminal()).toList();
                int running = (int) mine.stream().filter(a -> "running".equals(a.clientStatus())).count();
                io.caravan.api.model.DeploymentState d = latest == null ? null : latest.taskGroups().get(g.name());
                groups.put(g.name(), new GroupScale(g.count() == null ? 0 : g.count(),
                        d == null ? mine.size() : d.placedAllocs(), running, d == null ? 0 : d.healthyAllocs(),
                        d == null ? 0 : d.unhealthyAllocs(),
                        events == null ? List.of() : events.scalingEvents().getOrDefault(g.name(), List.of())));
            }
            return new ScaleStatus(job.id(), job.namespace(), job.createIndex(), job.jobModifyIndex(),
                    Boolean.TRUE.equals(job.stop()), groups);
        }
    }

    /** Nomad's {@code TaskGroupScaleStatus}. */
    record GroupScale(int desired, int placed, int running, int healthy, int unhealthy,
                      List<ScalingEvents.ScalingEvent> events) {}

    /** Nomad's {@code PUT /v1/job/:id/plan}: what registering would do, nothing written. */
    private ApiResponse planJob(ApiRequest r) throws io.caravan.scheduler.SchedulerException {
        JsonNode body = inJobNamespace(r, PLAN, r.body(JsonNode.class));
        requireIdOfPath(r.pathParam("id"), body, "Job ID does not match");
        Namespaces.require(store.snapshot(), jobNamespace(r, body));
        Job job = Jobs.canonical(body, agent.region(), limits);
        NodePools.requireFor(store.snapshot(), job);
        JobPlans.PlanResponse p = JobPlans.plan(store.snapshot(), job, java.time.Clock.systemUTC());
        JobPlans.PlanResponse plan = new JobPlans.PlanResponse(p.annotations(), p.failedTgAllocs(),
                p.jobModifyIndex(), p.createdEvals(), p.diff(), p.nextPeriodicLaunch(), Jobs.warnings(body), p.index());
        return ApiResponse.ok(plan, QueryMeta.index(plan.index()));
    }

    private CompletionStage<ApiResponse> deregisterJob(ApiRequest r) {
        String ns = r.options().namespace();
        String id = r.pathParam("id");
        Job job = store.snapshot().get(NomadTables.JOBS, NomadTables.key(ns, id))
                .orElseThrow(() -> new CaravanException(ErrorCode.NOT_FOUND, "job not found"));
        long now = System.currentTimeMillis() * 1_000_000L;
        Evaluation eval = PeriodicJobs.isParent(job) ? null : Evaluation.forJob(UUID.randomUUID().toString(), job,
                Evaluation.TRIGGER_JOB_DEREGISTER, now);
        boolean purge = r.query("purge").map(p -> p.isEmpty() || p.equals("true")).orElse(false);
        return writes.submit(new Command.JobDeregister(ns, id, purge, eval)).thenApply(result ->
                ApiResponse.ok(new RegisterResponse(eval == null ? "" : eval.id(), result.evalCreateIndex(), result.jobModifyIndex(), "",
                        result.index(), 0, true), QueryMeta.index(result.index())));
    }

    /** Nomad's JobRegisterResponse / JobDeregisterResponse, with the write meta in the body as Nomad puts it. */
    record RegisterResponse(String evalId, long evalCreateIndex, long jobModifyIndex, String warnings, long index,
                            long lastContact, boolean knownLeader) {}
}
