package io.caravan.api.model;

import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * A job as {@code POST /v1/jobs} receives it and {@code GET /v1/job/:id} returns it. Fields Nomad's Go API
 * holds as pointers are boxed, so that canonicalisation can tell "unset" from zero. {@code Payload} is the
 * base64 text of the dispatch payload, exactly as on the wire ({@link #decodePayload()} gives the bytes).
 * {@code Multiregion}, {@code UI} and {@code VersionTag} are kept raw.
 */
public record Job(
        String region,
        String namespace,
        String id,
        String parentId,
        String name,
        String type,
        Integer priority,
        Boolean allAtOnce,
        List<String> datacenters,
        String nodePool,
        List<Constraint> constraints,
        List<Affinity> affinities,
        List<Spread> spreads,
        List<TaskGroup> taskGroups,
        UpdateStrategy update,
        Map<String, Object> multiregion,
        PeriodicConfig periodic,
        ParameterizedJobConfig parameterizedJob,
        ReschedulePolicy reschedule,
        MigrateStrategy migrate,
        boolean dispatched,
        String dispatchIdempotencyToken,
        String payload,
        Map<String, String> meta,
        String consulToken,
        String consulNamespace,
        String vaultToken,
        String vaultNamespace,
        String nomadTokenId,
        String status,
        String statusDescription,
        Boolean stable,
        Long version,
        Long submitTime,
        Long createIndex,
        Long modifyIndex,
        Long jobModifyIndex,
        Boolean stop,
        Map<String, Object> ui,
        Map<String, Object> versionTag) {

    public static final String TYPE_SERVICE = "service";
    public static final String TYPE_BATCH = "batch";
    public static final String TYPE_SYSTEM = "system";
    public static final String TYPE_SYSBATCH = "sysbatch";
    /** Internal: the type of the server's core (GC) evaluations. */
    public static final String TYPE_CORE = "_core";

    public static final String STATUS_PENDING = "pending";
    public static final String STATUS_RUNNING = "running";
    public static final String STATUS_DEAD = "dead";

    public static final String DEFAULT_NAMESPACE = "default";
    public static final String DEFAULT_REGION = "global";
    public static final int DEFAULT_PRIORITY = 50;

    public Job {
        datacenters = Copy.list(datacenters);
        constraints = Copy.list(constraints);
        affinities = Copy.list(affinities);
        spreads = Copy.list(spreads);
        taskGroups = Copy.list(taskGroups);
        multiregion = Copy.rawOrNull(multiregion);
        meta = Copy.map(meta);
        ui = Copy.rawOrNull(ui);
        versionTag = Copy.rawOrNull(versionTag);
    }

    /** The dispatch payload's bytes; empty when there is none. */
    public byte[] decodePayload() {
        return payload == null ? new byte[0] : Base64.getDecoder().decode(payload);
    }

    public Job withStatus(String status, String statusDescription) {
        return server(stop, status, statusDescription, stable, version, submitTime, createIndex, modifyIndex, jobModifyIndex);
    }

    public Job withStop(boolean stop) {
        return server(stop, status, statusDescription, stable, version, submitTime, createIndex, modifyIndex, jobModifyIndex);
    }

    public Job withStable(boolean stable) {
        return server(stop, status, statusDescription, stable, version, submitTime, createIndex, modifyIndex, jobModifyIndex);
    }

    public Job withVersion(long version) {
        return server(stop, status, statusDescription, stable, version, submitTime, createIndex, modifyIndex, jobModifyIndex);
    }

    /** Unix nanoseconds. */
    public Job withSubmitTime(long submitTime) {
        return server(stop, status, statusDescription, stable, version, submitTime, createIndex, modifyIndex, jobModifyIndex);
    }

    public Job withIndexes(long createIndex, long modifyIndex, long jobModifyIndex) {
        return server(stop, status, statusDescription, stable, version, submitTime, createIndex, modifyIndex, jobModifyIndex);
    }

    private Job server(Boolean stop, String status, String statusDescription, Boolean stable, Long version,
                       Long submitTime, Long createIndex, Long modifyIndex, Long jobModifyIndex) {
        return new Job(region, namespace, id, parentId, name, type, priority, allAtOnce, datacenters, nodePool,
                constraints, affinities, spreads, taskGroups, update, multiregion, periodic, parameterizedJob,
                reschedule, migrate, dispatched, dispatchIdempotencyToken, payload, meta, consulToken,
                consulNamespace, vaultToken, vaultNamespace, nomadTokenId, status, statusDescription, stable,
                version, submitTime, createIndex, modifyIndex, jobModifyIndex, stop, ui, versionTag);
    }
}
