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

    /** Nomad's {@code LookupTaskGroup}: the group of that name, or null. */
    public TaskGroup lookupTaskGroup(String name) {
        for (TaskGroup tg : taskGroups) {
            if (tg.name().equals(name)) {
                return tg;
            }
        }
        return null;
    }

    public Job withStatus(String status, String statusDescription) {
        return toBuilder().status(status).statusDescription(statusDescription).build();
    }

    public Job withStop(boolean stop) {
        return toBuilder().stop(stop).build();
    }

    public Job withStable(boolean stable) {
        return toBuilder().stable(stable).build();
    }

    public Job withVersion(long version) {
        return toBuilder().version(version).build();
    }

    /** Unix nanoseconds. */
    public Job withSubmitTime(long submitTime) {
        return toBuilder().submitTime(submitTime).build();
    }

    public Job withIndexes(long createIndex, long modifyIndex, long jobModifyIndex) {
        return toBuilder().createIndex(createIndex).modifyIndex(modifyIndex).jobModifyIndex(jobModifyIndex)
                .build();
    }

    /** A copy to change: {@code x.toBuilder().field(v).build()}. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Sets any field of a copy; generated from the record's components, keep it in their order. */
    public static final class Builder {
        private String region;
        private String namespace;
        private String id;
        private String parentId;
        private String name;
        private String type;
        private Integer priority;
        private Boolean allAtOnce;
        private List<String> datacenters;
        private String nodePool;
        private List<Constraint> constraints;
        private List<Affinity> affinities;
        private List<Spread> spreads;
        private List<TaskGroup> taskGroups;
        private UpdateStrategy update;
        private Map<String, Object> multiregion;
        private PeriodicConfig periodic;
        private ParameterizedJobConfig parameterizedJob;
        private ReschedulePolicy reschedule;
        private MigrateStrategy migrate;
        private boolean dispatched;
        private String dispatchIdempotencyToken;
        private String payload;
        private Map<String, String> meta;
        private String consulToken;
        private String consulNamespace;
        private String vaultToken;
        private String vaultNamespace;
        private String nomadTokenId;
        private String status;
        private String statusDescription;
        private Boolean stable;
        private Long version;
        private Long submitTime;
        private Long createIndex;
        private Long modifyIndex;
        private Long jobModifyIndex;
        private Boolean stop;
        private Map<String, Object> ui;
        private Map<String, Object> versionTag;

        private Builder(Job from) {
            region = from.region;
            namespace = from.namespace;
            id = from.id;
            parentId = from.parentId;
            name = from.name;
            type = from.type;
            priority = from.priority;
            allAtOnce = from.allAtOnce;
            datacenters = from.datacenters;
            nodePool = from.nodePool;
            constraints = from.constraints;
            affinities = from.affinities;
            spreads = from.spreads;
            taskGroups = from.taskGroups;
            update = from.update;
            multiregion = from.multiregion;
            periodic = from.periodic;
            parameterizedJob = from.parameterizedJob;
            reschedule = from.reschedule;
            migrate = from.migrate;
            dispatched = from.dispatched;
            dispatchIdempotencyToken = from.dispatchIdempotencyToken;
            payload = from.payload;
            meta = from.meta;
            consulToken = from.consulToken;
            consulNamespace = from.consulNamespace;
            vaultToken = from.vaultToken;
            vaultNamespace = from.vaultNamespace;
            nomadTokenId = from.nomadTokenId;
            status = from.status;
            statusDescription = from.statusDescription;
            stable = from.stable;
            version = from.version;
            submitTime = from.submitTime;
            createIndex = from.createIndex;
            modifyIndex = from.modifyIndex;
            jobModifyIndex = from.jobModifyIndex;
            stop = from.stop;
            ui = from.ui;
            versionTag = from.versionTag;
        }

        public Builder region(String region) {
            this.region = region;
            return this;
        }

        public Builder namespace(String namespace) {
            this.namespace = namespace;
            return this;
        }

        public Builder id(String id) {
            this.id = id;
            return this;
        }

        public Builder parentId(String parentId) {
            this.parentId = parentId;
            return this;
        }

        public Builder name(String name) {
            this.name = name;
            return this;
        }

        public Builder type(String type) {
            this.type = type;
            return this;
        }

        public Builder priority(Integer priority) {
            this.priority = priority;
            return this;
        }

        public Builder allAtOnce(Boolean allAtOnce) {
            this.allAtOnce = allAtOnce;
            return this;
        }

        public Builder datacenters(List<String> datacenters) {
            this.datacenters = datacenters;
            return this;
        }

        public Builder nodePool(String nodePool) {
            this.nodePool = nodePool;
            return this;
        }

        public Builder constraints(List<Constraint> constraints) {
            this.constraints = constraints;
            return this;
        }

        public Builder affinities(List<Affinity> affinities) {
            this.affinities = affinities;
            return this;
        }

        public Builder spreads(List<Spread> spreads) {
            this.spreads = spreads;
            return this;
        }

        public Builder taskGroups(List<TaskGroup> taskGroups) {
            this.taskGroups = taskGroups;
            return this;
        }

        public Builder update(UpdateStrategy update) {
            this.update = update;
            return this;
        }

        public Builder multiregion(Map<String, Object> multiregion) {
            this.multiregion = multiregion;
            return this;
        }

        public Builder periodic(PeriodicConfig periodic) {
            this.periodic = periodic;
            return this;
        }

        public Builder parameterizedJob(ParameterizedJobConfig parameterizedJob) {
            this.parameterizedJob = parameterizedJob;
            return this;
        }

        public Builder reschedule(ReschedulePolicy reschedule) {
            this.reschedule = reschedule;
            return this;
        }

        public Builder migrate(MigrateStrategy migrate) {
            this.migrate = migrate;
            return this;
        }

        public Builder dispatched(boolean dispatched) {
            this.dispatched = dispatched;
            return this;
        }

        public Builder dispatchIdempotencyToken(String dispatchIdempotencyToken) {
            this.dispatchIdempotencyToken = dispatchIdempotencyToken;
            return this;
        }

        public Builder payload(String payload) {
            this.payload = payload;
            return this;
        }

        public Builder meta(Map<String, String> meta) {
            this.meta = meta;
            return this;
        }

        public Builder consulToken(String consulToken) {
            this.consulToken = consulToken;
            return this;
        }

        public Builder consulNamespace(String consulNamespace) {
            this.consulNamespace = consulNamespace;
            return this;
        }

        public Builder vaultToken(String vaultToken) {
            this.vaultToken = vaultToken;
            return this;
        }

        public Builder vaultNamespace(String vaultNamespace) {
            this.vaultNamespace = vaultNamespace;
            return this;
        }

        public Builder nomadTokenId(String nomadTokenId) {
            this.nomadTokenId = nomadTokenId;
            return this;
        }

        public Builder status(String status) {
            this.status = status;
            return this;
        }

        public Builder statusDescription(String statusDescription) {
            this.statusDescription = statusDescription;
            return this;
        }

        public Builder stable(Boolean stable) {
            this.stable = stable;
            return this;
        }

        public Builder version(Long version) {
            this.version = version;
            return this;
        }

        public Builder submitTime(Long submitTime) {
            this.submitTime = submitTime;
            return this;
        }

        public Builder createIndex(Long createIndex) {
            this.createIndex = createIndex;
            return this;
        }

        public Builder modifyIndex(Long modifyIndex) {
            this.modifyIndex = modifyIndex;
            return this;
        }

        public Builder jobModifyIndex(Long jobModifyIndex) {
            this.jobModifyIndex = jobModifyIndex;
            return this;
        }

        public Builder stop(Boolean stop) {
            this.stop = stop;
            return this;
        }

        public Builder ui(Map<String, Object> ui) {
            this.ui = ui;
            return this;
        }

        public Builder versionTag(Map<String, Object> versionTag) {
            this.versionTag = versionTag;
            return this;
        }

        public Job build() {
            return new Job(
                region, namespace, id, parentId, name, type, priority, allAtOnce, datacenters, nodePool, constraints,
                affinities, spreads, taskGroups, update, multiregion, periodic, parameterizedJob, reschedule, migrate,
                dispatched, dispatchIdempotencyToken, payload, meta, consulToken, consulNamespace, vaultToken,
                vaultNamespace, nomadTokenId, status, statusDescription, stable, version, submitTime, createIndex,
                modifyIndex, jobModifyIndex, stop, ui, versionTag);
        }
    }
}
