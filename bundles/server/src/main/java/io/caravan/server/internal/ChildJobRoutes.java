package io.caravan.server.internal;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.AclRule;
import io.caravan.api.acl.Capability;
import io.caravan.api.codec.Snappy;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.api.model.ParameterizedJobConfig;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiRequest;
import io.caravan.http.ApiResponse;
import io.caravan.http.ApiRoutes;
import io.caravan.http.QueryMeta;
import io.caravan.http.RouteTable;
import io.caravan.state.StateStore;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;

/**
 * Nomad's endpoints that create the children of a parent job: {@code POST /v1/job/:id/dispatch} (a parameterized job's
 * instance, with its payload and meta) and {@code POST /v1/job/:id/periodic/force} (a periodic launch now). Each child
 * is registered with its evaluation in one Raft write.
 */
@Component(service = ApiRoutes.class, configurationPid = "io.caravan.server",
        configurationPolicy = ConfigurationPolicy.REQUIRE)
public final class ChildJobRoutes implements ApiRoutes {
    static final ApiEndpoint DISPATCH = ApiEndpoint.of("Job.Dispatch", AclRule.namespace(Capability.DISPATCH_JOB));
    static final ApiEndpoint PERIODIC_FORCE = ApiEndpoint.of("Periodic.Force",
            AclRule.anyOf(AclRule.namespace(Capability.DISPATCH_JOB), AclRule.namespace(Capability.SUBMIT_JOB)));

    /** Nomad's {@code DispatchPayloadSizeLimit}. */
    static final int PAYLOAD_LIMIT = 16 * 1024;

    private final StateStore store;
    private final RaftWrites writes;

    @Activate
    public ChildJobRoutes(@Reference ServerState state, @Reference RaftWrites writes) {
        this.store = state.store();
        this.writes = writes;
    }

    /** A reload: nothing here changes live; without this method DS would restart the component on every change. */
    @Modified
    void modified() {
        // nothing to apply
    }

    @Override
    public void register(RouteTable routes) {
        routes.writeAsync("/v1/job/{id}/dispatch", DISPATCH, this::dispatch)
                .writeAsync("/v1/job/{id}/periodic/force", PERIODIC_FORCE, this::force);
    }

    /** Nomad's {@code JobDispatchRequest} body. */
    record DispatchRequest(String payload, Map<String, String> meta, String idPrefixTemplate) {}

    /** Nomad's {@code JobDispatchResponse}. */
    record DispatchResponse(String dispatchedJobId, String evalId, long evalCreateIndex, long jobCreateIndex,
                            long index) {}

    private CompletionStage<ApiResponse> dispatch(ApiRequest r) {
        DispatchRequest req = r.body(DispatchRequest.class);
        if (req == null) {
            req = new DispatchRequest(null, null, null);
        }
        String jobId = r.pathParam("id");
        Job parent = job(r);
        if (!PeriodicJobs.isParameterized(parent)) {
            throw CaravanException.badRequest("Specified job \"" + jobId + "\" is not a parameterized job");
        }
        if (Boolean.TRUE.equals(parent.stop())) {
            throw CaravanException.badRequest("Specified job \"" + jobId + "\" is stopped");
        }
        byte[] payload = decode(req.payload());
        Map<String, String> meta = req.meta() == null ? Map.of() : req.meta();
        validate(parent.parameterizedJob(), payload, meta);
        String prefix = req.idPrefixTemplate() == null ? "" : req.idPrefixTemplate();
        if (prefix.chars().anyMatch(c -> Character.isWhitespace(c) || c == 0 || c == '/')) {
            throw CaravanException.invalid("IdPrefixTemplate", "must not contain a space, a slash or a null character");
        }
        String token = r.query("idempotency_token").orElse("");
        if (!token.isEmpty()) {
            // Nomad's idempotent dispatch: a child dispatched with the same token, until it is collected, is the
            // answer (with no new evaluation).
            Job existing = PeriodicJobs.children(store.snapshot(), parent.namespace(), parent.id())
                    .filter(c -> token.equals(c.dispatchIdempotencyToken())).findFirst().orElse(null);
            if (existing != null) {
                return CompletableFuture.completedFuture(ApiResponse.ok(new DispatchResponse(existing.id(), "", 0,
                        existing.createIndex(), existing.modifyIndex()), QueryMeta.index(existing.modifyIndex())));
            }
        }
        long now = System.currentTimeMillis() * 1_000_000L;
        Job child = child(parent, prefix, payload, meta, token, now);
        // A dispatched periodic job is itself a periodic parent: the dispatcher launches it, nothing is placed now.
        Evaluation eval = PeriodicJobs.isParent(child) ? null : Evaluation.forJob(UUID.randomUUID().toString(), child,
                Evaluation.TRIGGER_JOB_REGISTER, now);
        return writes.submit(new Command.JobRegister(child, eval, true, 0)).thenApply(result -> ApiResponse.ok(
                new DispatchResponse(child.id(), eval == null ? "" : eval.id(), result.evalCreateIndex(),
                        result.index(), result.index()), QueryMeta.index(result.index())));
    }

    /** Nomad's dispatched job: the parent's copy under a new ID, the payload stored snappy-framed, the meta merged. */
    static Job child(Job parent, String prefix, byte[] payload, Map<String, String> meta, String token, long nowNanos) {
        String id = parent.id() + PeriodicJobs.DISPATCH_SUFFIX + (prefix.isEmpty() ? "" : prefix + "-")
                + nowNanos / 1_000_000_000L + "-" + UUID.randomUUID().toString().substring(0, 8);
        Map<String, String> merged = new LinkedHashMap<>(parent.meta());
        merged.putAll(meta);
        return parent.toBuilder().id(id).name(id).parentId(parent.id()).dispatched(true).status("")
                .statusDescription("").meta(merged).dispatchIdempotencyToken(token.isEmpty() ? null : token)
                .payload(payload.length == 0 ? null : Base64.getEncoder().encodeToString(Snappy.encode(payload)))
                .submitTime(nowNanos).build();
    }

    private static byte[] decode(String payload) {
        if (payload == null || payload.isEmpty()) {
            return new byte[0];
        }
        try {
            return Base64.getDecoder().decode(payload);
        } catch (IllegalArgumentException e) {
            throw CaravanException.invalid("Payload", "not valid base64: " + e.getMessage());
        }
    }

    /** Nomad's {@code validateDispatchRequest}: the payload rule and size, then the meta keys. */
    static void validate(ParameterizedJobConfig rules, byte[] payload, Map<String, String> meta) {
        String rule = rules.payload() == null ? ParameterizedJobConfig.PAYLOAD_OPTIONAL : rules.payload();
        if (rule.equals(ParameterizedJobConfig.PAYLOAD_REQUIRED) && payload.length == 0) {
            throw CaravanException.invalid("Payload", "Payload is not provided but required by parameterized job");
        }
        if (rule.equals(ParameterizedJobConfig.PAYLOAD_FORBIDDEN) && payload.length > 0) {
            throw CaravanException.invalid("Payload", "Payload provided but forbidden by parameterized job");
        }
        if (payload.length > PAYLOAD_LIMIT) {
            throw CaravanException.invalid("Payload", "Payload exceeds maximum size; " + payload.length + " > "
                    + PAYLOAD_LIMIT);
        }
        Set<String> allowed = new HashSet<>(rules.metaRequired());
        allowed.addAll(rules.metaOptional());
        Set<String> unpermitted = new TreeSet<>(meta.keySet());
        unpermitted.removeAll(allowed);
        if (!unpermitted.isEmpty()) {
            throw CaravanException.invalid("Meta", "Dispatch request included unpermitted metadata keys: "
                    + new ArrayList<>(unpermitted));
        }
        List<String> missing = rules.metaRequired().stream().filter(k -> !meta.containsKey(k)).sorted().toList();
        if (!missing.isEmpty()) {
            throw CaravanException.invalid("Meta", "Dispatch did not provide required meta keys: " + missing);
        }
    }

    /** Nomad's {@code PeriodicForceResponse}. */
    record ForceResponse(String evalId, long evalCreateIndex, long index) {}

    private CompletionStage<ApiResponse> force(ApiRequest r) {
        Job parent = job(r);
        if (parent.periodic() == null || PeriodicJobs.isParameterized(parent)) {
            throw CaravanException.badRequest("can't force launch non-periodic job \"" + parent.id() + "\"");
        }
        if (Boolean.TRUE.equals(parent.stop())) {
            throw CaravanException.badRequest("can't force launch stopped job \"" + parent.id() + "\"");
        }
        long now = System.currentTimeMillis() * 1_000_000L;
        Command.JobRegister launch = PeriodicJobs.launch(parent, Instant.ofEpochSecond(now / 1_000_000_000L), now);
        return writes.submit(launch).thenApply(result -> ApiResponse.ok(new ForceResponse(launch.eval().id(),
                result.evalCreateIndex(), result.index()), QueryMeta.index(result.index())));
    }

    private Job job(ApiRequest r) {
        return store.snapshot().get(NomadTables.JOBS, NomadTables.key(r.options().namespace(), r.pathParam("id")))
                .orElseThrow(() -> new CaravanException(ErrorCode.NOT_FOUND, "job not found"));
    }

    /** Nomad's {@code GET /v1/job/:id}: a dispatched job's payload as dispatched, not as stored (snappy). */
    static ApiResponse payloadDecoded(ApiResponse answer) {
        if (answer.body() instanceof Job job && job.payload() != null && !job.payload().isEmpty()) {
            byte[] raw = Snappy.decodeOrNull(job.decodePayload());
            if (raw != null) {
                return new ApiResponse(answer.status(), job.toBuilder()
                        .payload(Base64.getEncoder().encodeToString(raw)).build(), answer.meta());
            }
        }
        return answer;
    }
}
