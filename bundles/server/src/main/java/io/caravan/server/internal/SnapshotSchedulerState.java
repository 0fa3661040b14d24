package io.caravan.server.internal;

import java.util.List;
import java.util.Optional;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.Deployment;
import io.caravan.api.model.Job;
import io.caravan.api.model.Node;
import io.caravan.scheduler.NodeLoad;
import io.caravan.scheduler.SchedulerConfiguration;
import io.caravan.scheduler.SchedulerState;
import io.caravan.state.StateSnapshot;

/**
 * The scheduler's read-only view of one state store snapshot; {@code proposed}, when set, stands in for the stored
 * version of that job ({@code job plan}: state as it would be with the submitted job registered).
 */
record SnapshotSchedulerState(StateSnapshot snapshot, Job proposed) implements SchedulerState {

    SnapshotSchedulerState(StateSnapshot snapshot) {
        this(snapshot, null);
    }

    @Override
    public long index() {
        return snapshot.latestIndex();
    }

    @Override
    public Optional<Job> job(String namespace, String jobId) {
        if (proposed != null && proposed.namespace().equals(namespace) && proposed.id().equals(jobId)) {
            return Optional.of(proposed);
        }
        // A periodic or parameterized parent is never placed: should an evaluation name one, it has nothing to run.
        return snapshot.get(NomadTables.JOBS, NomadTables.key(namespace, jobId))
                .map(job -> PeriodicJobs.isParent(job) ? job.withStop(true) : job);
    }

    @Override
    public List<Node> nodes() {
        return snapshot.all(NomadTables.NODES).toList();
    }

    @Override
    public Optional<Node> node(String nodeId) {
        return snapshot.get(NomadTables.NODES, nodeId);
    }

    @Override
    public List<Allocation> allocsByJob(String namespace, String jobId) {
        return snapshot.byIndex(NomadTables.ALLOCS, "job", NomadTables.key(namespace, jobId)).toList();
    }

    @Override
    public List<Allocation> allocsByNode(String nodeId) {
        return snapshot.byIndex(NomadTables.ALLOCS, "node", nodeId).toList();
    }

    @Override
    public NodeLoad load(String nodeId) {
        return snapshot.aggregate(NomadTables.ALLOCS, NomadTables.NODE_LOAD, nodeId);
    }

    @Override
    public Optional<Allocation> alloc(String nodeId, String allocId) {
        return snapshot.get(NomadTables.ALLOCS, allocId).filter(a -> nodeId.equals(a.nodeId()));
    }

    @Override
    public Optional<Deployment> latestDeployment(String namespace, String jobId) {
        return latestDeployment(snapshot, namespace, jobId);
    }

    /** The job's deployment created last (Nomad's {@code LatestDeploymentByJobID}). */
    static Optional<Deployment> latestDeployment(StateSnapshot snapshot, String namespace, String jobId) {
        return snapshot.byIndex(NomadTables.DEPLOYMENTS, "job", NomadTables.key(namespace, jobId))
                .max(java.util.Comparator.comparingLong(Deployment::createIndex));
    }

    @Override
    public SchedulerConfiguration configuration() {
        return schedulerConfig(snapshot).forScheduler();
    }

    /** The operator's scheduler configuration, Nomad's defaults until one is written. */
    static SchedulerConfig schedulerConfig(StateSnapshot snapshot) {
        return snapshot.get(NomadTables.SCHEDULER_CONFIG, SchedulerConfig.KEY).orElse(SchedulerConfig.DEFAULT);
    }

    /** The cluster's configuration with what the job's node pool sets in its {@code SchedulerConfiguration}. */
    @Override
    public SchedulerConfiguration configuration(Job job) {
        SchedulerConfiguration cluster = configuration();
        if (job == null) {
            return cluster;
        }
        String pool = job.nodePool() == null || job.nodePool().isEmpty() ? NodePools.DEFAULT : job.nodePool();
        NodePools.SchedulerConfiguration own = NodePools.get(snapshot, pool)
                .map(NodePools.NodePool::schedulerConfiguration).orElse(null);
        if (own == null) {
            return cluster;
        }
        String algorithm = own.schedulerAlgorithm() == null || own.schedulerAlgorithm().isEmpty()
                ? cluster.schedulerAlgorithm() : own.schedulerAlgorithm();
        boolean memory = own.memoryOversubscriptionEnabled() == null ? cluster.memoryOversubscriptionEnabled()
                : own.memoryOversubscriptionEnabled();
        return new SchedulerConfiguration(algorithm, memory, cluster.preemptSystem(), cluster.preemptBatch(),
                cluster.preemptService(), cluster.preemptSysBatch());
    }
}
