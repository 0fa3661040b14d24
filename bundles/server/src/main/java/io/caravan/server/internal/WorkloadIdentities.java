package io.caravan.server.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import io.caravan.api.GoDuration;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Job;
import io.caravan.api.model.Task;
import io.caravan.state.StateSnapshot;

/**
 * Workload identities (NOMAD-REFERENCE §8.4): a task's JWT, signed by the keyring with Nomad's claims, and what such a
 * JWT is allowed when it comes back as a secret: Nomad's implicit policy, read and list on the task's own variables.
 */
final class WorkloadIdentities {
    static final String DEFAULT_NAME = "default";
    static final String DEFAULT_AUDIENCE = "nomadproject.io";

    /** The claims of a valid workload identity, as the resolver needs them. */
    record Claims(String namespace, String jobId, String allocationId, String task, String subject) {}

    private WorkloadIdentities() {
    }

    /**
     * The {@code identity} block of task {@code task} named {@code name} (its raw JSON form): the default identity
     * always exists (an empty block when the task has none); another name only when the task declares it.
     */
    static Optional<Map<String, Object>> block(Task task, String name) {
        if (DEFAULT_NAME.equals(name) && task.identity() != null) {
            return Optional.of(task.identity());
        }
        for (Map<String, Object> id : task.identities() == null ? List.<Map<String, Object>>of() : task.identities()) {
            Object n = id.get("Name");
            if (name.equals(n == null || "".equals(n) ? DEFAULT_NAME : n)) {
                return Optional.of(id);
            }
        }
        return DEFAULT_NAME.equals(name) ? Optional.of(Map.of()) : Optional.empty();
    }

    /** An identity's {@code TTL}; empty when it has none (Nomad's default identity never expires). */
    static Optional<Duration> ttl(Map<String, Object> block) {
        return ttl(block.get("TTL"));
    }

    /**
     * The claims of task {@code task}'s identity {@code name} in {@code alloc}: {@code aud} and {@code ttl} come from
     * that {@code identity} block ({@code Audience}, {@code TTL} in its raw form), Nomad's defaults otherwise
     * (audience {@code nomadproject.io}, no expiry).
     */
    static Map<String, Object> claims(Allocation alloc, Task task, String name, long nowSeconds, String issuer) {
        Map<String, Object> block = block(task, name).orElse(Map.of());
        Job job = alloc.job();
        String region = job == null || job.region() == null ? "global" : job.region();
        Map<String, Object> claims = new LinkedHashMap<>();
        claims.put("nomad_namespace", alloc.namespace());
        claims.put("nomad_job_id", alloc.jobId());
        claims.put("nomad_allocation_id", alloc.id());
        claims.put("nomad_task", task.name());
        claims.put("sub", String.join(":", region, alloc.namespace(), alloc.jobId(), alloc.taskGroup(), task.name(),
                name));
        claims.put("aud", audience(block.get("Audience")));
        claims.put("jti", UUID.randomUUID().toString());
        claims.put("iat", nowSeconds);
        claims.put("nbf", nowSeconds);
        ttl(block.get("TTL")).ifPresent(ttl -> claims.put("exp", nowSeconds + ttl.toSeconds()));
        if (issuer != null && !issuer.isEmpty()) {
            claims.put("iss", issuer);
        }
        return claims;
    }

    private static List<String> audience(Object aud) {
        if (aud instanceof List<?> list && !list.isEmpty()) {
            List<String> out = new ArrayList<>();
            list.forEach(a -> out.add(String.valueOf(a)));
            return out;
        }
        return List.of(DEFAULT_AUDIENCE);
    }

    /** A TTL as the jobspec keeps it: nanoseconds (JSON API) or a Go duration string. */
    private static Optional<Duration> ttl(Object ttl) {
        if (ttl instanceof Number n && n.longValue() > 0) {
            return Optional.of(Duration.ofNanos(n.longValue()));
        }
        if (ttl instanceof String s && !s.isEmpty()) {
            Duration d = GoDuration.parse(s);
            return d.isZero() ? Optional.empty() : Optional.of(d);
        }
        return Optional.empty();
    }

    /**
     * Verified claims that name a workload: the four {@code nomad_*} claims present, and the allocation still exists
     * and is not terminal (Nomad refuses the identity of a finished allocation). Empty otherwise.
     */
    static Optional<Claims> workload(StateSnapshot s, Map<String, Object> claims) {
        if (!(claims.get("nomad_namespace") instanceof String ns) || !(claims.get("nomad_job_id") instanceof String job)
                || !(claims.get("nomad_allocation_id") instanceof String allocId)
                || !(claims.get("nomad_task") instanceof String task)) {
            return Optional.empty();
        }
        Optional<Allocation> alloc = s.get(NomadTables.ALLOCS, allocId);
        if (alloc.isEmpty() || alloc.get().terminal() || !alloc.get().jobId().equals(job)
                || !alloc.get().namespace().equals(ns)) {
            return Optional.empty();
        }
        return Optional.of(new Claims(ns, job, allocId, task, String.valueOf(claims.get("sub"))));
    }

    /**
     * Nomad's implicit policy for a workload: read and list on exactly {@code nomad/jobs}, {@code nomad/jobs/<job>},
     * {@code nomad/jobs/<job>/<group>} and {@code nomad/jobs/<job>/<group>/<task>} in its namespace.
     */
    static String implicitPolicy(Claims c, String group) {
        StringBuilder hcl = new StringBuilder("namespace ").append(quote(c.namespace())).append(" {\n  variables {\n");
        for (String path : List.of("nomad/jobs", "nomad/jobs/" + c.jobId(), "nomad/jobs/" + c.jobId() + "/" + group,
                "nomad/jobs/" + c.jobId() + "/" + group + "/" + c.task())) {
            hcl.append("    path ").append(quote(path)).append(" { capabilities = [\"read\", \"list\"] }\n");
        }
        return hcl.append("  }\n}\n").toString();
    }

    private static String quote(String s) {
        // HCL: escape quotes and backslashes, and interpolation markers, which a job ID may contain
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("${", "$${").replace("%{", "%%{") + "\"";
    }
}
