package io.caravan.server.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import io.caravan.api.acl.AclAuthMethod;
import io.caravan.api.acl.AclBindingRule;
import io.caravan.api.acl.AclPolicy;
import io.caravan.api.acl.AclRole;
import io.caravan.api.acl.AclToken;
import io.caravan.api.json.NomadJson;
import io.caravan.api.model.AllocatedResources;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Deployment;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.api.model.JobSummary;
import io.caravan.api.model.Node;
import io.caravan.api.model.ServiceRegistration;
import io.caravan.scheduler.NodeLoad;
import io.caravan.state.AggregateSpec;
import io.caravan.state.Codec;
import io.caravan.state.IndexSpec;
import io.caravan.state.TableCodec;
import io.caravan.state.TableSpec;

/**
 * Nomad's tables on the generic state store. Namespaced objects are keyed {@code namespace\0id}, so one namespace
 * is a key prefix and Nomad's {@code prefix} queries are prefix scans; versions sort by a zero-padded number.
 */
final class NomadTables {
    static final TableSpec<Job> JOBS = TableSpec.of("jobs", Job.class, j -> key(j.namespace(), j.id()));
    static final TableSpec<Job> JOB_VERSIONS = TableSpec.of("job_version", Job.class,
            j -> key(j.namespace(), j.id()) + "\0" + String.format("%020d", j.version()));
    static final TableSpec<JobSummary> JOB_SUMMARIES = TableSpec.of("job_summary", JobSummary.class,
            s -> key(s.namespace(), s.jobId()));
    static final TableSpec<Evaluation> EVALS = TableSpec.of("evals", Evaluation.class, Evaluation::id)
            .withIndex(IndexSpec.single("job", e -> key(e.namespace(), e.jobId())));
    /** What each node's live allocations use, kept with every allocation write (placing and verifying read it). */
    static final AggregateSpec<Allocation, AllocatedResources, NodeLoad> NODE_LOAD = new AggregateSpec<>("node_load",
            Allocation::nodeId, NodeLoad::contribution, NodeLoad.EMPTY, NodeLoad::plus, NodeLoad::minus);
    /** How many allocations each node has, terminal ones included (what a client's list counts). */
    static final AggregateSpec<Allocation, Integer, Integer> NODE_ALLOCS = new AggregateSpec<>("node_allocs",
            Allocation::nodeId, a -> 1, 0, Integer::sum, (total, one) -> total - one);
    /**
     * A node's allocations in the order they were last written: {@link #nodeModifyKey}. A client asking what changed
     * since it last looked reads those only, not every allocation the node has.
     */
    static final String NODE_MODIFY = "node_modify";
    static final TableSpec<Allocation> ALLOCS = TableSpec.of("allocs", Allocation.class, Allocation::id)
            .withIndex(IndexSpec.single("job", a -> key(a.namespace(), a.jobId())))
            .withIndex(IndexSpec.single("node", Allocation::nodeId))
            .withIndex(IndexSpec.single("eval", Allocation::evalId))
            .withIndex(IndexSpec.single(NODE_MODIFY, a -> a.nodeId() == null ? null
                    : nodeModifyKey(a.nodeId(), a.modifyIndex())))
            .withAggregate(NODE_LOAD)
            .withAggregate(NODE_ALLOCS);

    /** The {@link #NODE_MODIFY} key: node ID, NUL, the modify index zero-padded so keys sort as the indexes do. */
    static String nodeModifyKey(String nodeId, long modifyIndex) {
        String digits = Long.toString(modifyIndex);
        return nodeId + "\0" + "0".repeat(Math.max(0, 19 - digits.length())) + digits;
    }
    static final TableSpec<Node> NODES = TableSpec.of("nodes", Node.class, Node::id);
    static final TableSpec<Deployment> DEPLOYMENTS = TableSpec.of("deployment", Deployment.class, Deployment::id)
            .withIndex(IndexSpec.single("job", d -> key(d.namespace(), d.jobId())));
    static final TableSpec<SchedulerConfig> SCHEDULER_CONFIG = TableSpec.of("scheduler_config",
            SchedulerConfig.class, c -> SchedulerConfig.KEY);

    static final TableSpec<AclPolicy> ACL_POLICIES = TableSpec.of("acl_policy", AclPolicy.class, AclPolicy::name);
    static final TableSpec<AclToken> ACL_TOKENS = TableSpec.of("acl_token", AclToken.class, AclToken::accessorId)
            .withIndex(IndexSpec.single("secret", AclToken::secretId));
    static final TableSpec<AclRole> ACL_ROLES = TableSpec.of("acl_role", AclRole.class, AclRole::id)
            .withIndex(IndexSpec.single("name", AclRole::name));
    /** One row once the cluster is bootstrapped: the index of the bootstrap (the reset file must name it). */
    static final TableSpec<AclApply.Bootstrapped> ACL_BOOTSTRAP = TableSpec.of("acl_bootstrap",
            AclApply.Bootstrapped.class, b -> AclApply.Bootstrapped.KEY);
    static final TableSpec<AclAuthMethod> ACL_AUTH_METHODS = TableSpec.of("acl_auth_method", AclAuthMethod.class,
            AclAuthMethod::name);
    static final TableSpec<AclBindingRule> ACL_BINDING_RULES = TableSpec.of("acl_binding_rule", AclBindingRule.class,
            AclBindingRule::id).withIndex(IndexSpec.single("method", AclBindingRule::authMethod));
    /** Variables by {@code namespace\0path}, so a namespace and a path prefix are one key prefix. */
    static final TableSpec<Variable.Entry> VARIABLES = TableSpec.of("variables", Variable.Entry.class,
            Variable.Entry::key);
    static final TableSpec<Namespaces.Namespace> NAMESPACES = TableSpec.of("namespaces", Namespaces.Namespace.class,
            Namespaces.Namespace::name);
    static final TableSpec<ScalingEvents.JobScalingEvents> SCALING_EVENTS = TableSpec.of("scaling_event",
            ScalingEvents.JobScalingEvents.class, e -> key(e.namespace(), e.jobId()));
    /** Nomad's service registrations by ID; by {@code namespace\0service name}, allocation and node. */
    static final TableSpec<ServiceRegistration> SERVICE_REGISTRATIONS = TableSpec.of("service_registrations",
            ServiceRegistration.class, ServiceRegistration::id)
            .withIndex(IndexSpec.single("service", r -> key(r.namespace(), r.serviceName())))
            .withIndex(IndexSpec.single("alloc", ServiceRegistration::allocId))
            .withIndex(IndexSpec.single("node", ServiceRegistration::nodeId));
    /** The ACL tables, whose indexes tell a resolver's cache that its compiled policies may be stale. */
    static final List<TableSpec<?>> ACL = List.of(ACL_POLICIES, ACL_TOKENS, ACL_ROLES, ACL_BOOTSTRAP);

    static final List<TableSpec<?>> ALL = List.of(JOBS, JOB_VERSIONS, JOB_SUMMARIES, EVALS, ALLOCS, NODES,
            SCHEDULER_CONFIG, AppliedRequests.TABLE, ACL_POLICIES, ACL_TOKENS, ACL_ROLES, ACL_BOOTSTRAP,
            ACL_AUTH_METHODS, ACL_BINDING_RULES, DEPLOYMENTS, PeriodicJobs.LAUNCHES, VARIABLES, NAMESPACES, SCALING_EVENTS,
            Keyring.ROOT_KEYS, Keyring.KEYSTORES, SERVICE_REGISTRATIONS,
            SnapshotRestore.CHUNKS, Autopilot.CONFIG, NodePools.TABLE, OneTimeTokens.TABLE);

    /**
     * A codec for one snapshot or one restore (it is stateful): each row as Nomad's JSON, readable and the shape the
     * API serves, except that an allocation's job is written only the first time that job object is met and later
     * allocations refer to it by number. A million allocations of a thousand jobs thus write, and restore into, a
     * thousand jobs rather than a million copies — as the store shares them in memory.
     */
    static Codec codec() {
        return Codec.of(json(JOBS), json(JOB_VERSIONS), json(JOB_SUMMARIES), json(EVALS), allocs(), json(NODES),
                json(SCHEDULER_CONFIG), json(AppliedRequests.TABLE), json(ACL_POLICIES), json(ACL_TOKENS),
                json(ACL_ROLES), json(ACL_BOOTSTRAP), json(ACL_AUTH_METHODS), json(ACL_BINDING_RULES),
                json(DEPLOYMENTS), json(PeriodicJobs.LAUNCHES), json(VARIABLES), json(NAMESPACES),
                json(SCALING_EVENTS), json(Keyring.ROOT_KEYS), json(Keyring.KEYSTORES),
                json(SERVICE_REGISTRATIONS), json(SnapshotRestore.CHUNKS),
                json(Autopilot.CONFIG), json(NodePools.TABLE), json(OneTimeTokens.TABLE));
    }

    /** An allocation row: {@code {"Ref": n, "Alloc": {...}}}, the alloc's {@code Job} present only at first use. */
    record AllocRow(int ref, Allocation alloc) {}

    private static TableCodec<Allocation> allocs() {
        Map<Job, Integer> written = new IdentityHashMap<>();
        Map<Integer, Job> read = new HashMap<>();
        return new TableCodec<>(ALLOCS, alloc -> {
            Job job = alloc.job();
            Integer ref = job == null ? Integer.valueOf(-1) : written.get(job);
            boolean first = job != null && ref == null;
            if (first) {
                ref = written.size();
                written.put(job, ref);
            }
            return bytes(new AllocRow(ref, first || job == null ? alloc : alloc.toBuilder().job(null).build()));
        }, bytes -> {
            AllocRow row = value(bytes, AllocRow.class);
            if (row.ref() < 0) {
                return row.alloc();
            }
            if (row.alloc().job() != null) {
                read.put(row.ref(), row.alloc().job());
                return row.alloc();
            }
            return row.alloc().toBuilder().job(read.get(row.ref())).build();
        });
    }

    private NomadTables() {
    }

    static String key(String namespace, String id) {
        return namespace + "\0" + id;
    }

    private static <T> TableCodec<T> json(TableSpec<T> table) {
        return new TableCodec<>(table, NomadTables::bytes, bytes -> value(bytes, table.type()));
    }

    private static byte[] bytes(Object row) {
        try {
            return NomadJson.internalMapper().writeValueAsBytes(row);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static <T> T value(byte[] bytes, Class<T> type) {
        try {
            return NomadJson.internalMapper().readValue(bytes, type);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
