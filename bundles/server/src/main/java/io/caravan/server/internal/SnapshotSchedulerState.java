package io.caravan.server.internal;

import java.util.List;
import java.util.Optional;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.Job;
import io.caravan.api.model.Node;
import io.caravan.scheduler.SchedulerConfiguration;
import io.caravan.scheduler.SchedulerState;
import io.caravan.state.StateSnapshot;

/** The scheduler's read-only view of one state store snapshot. */
record SnapshotSchedulerState(StateSnapshot snapshot) implements SchedulerState {

    @Override
    public long index() {
        return snapshot.latestIndex();
    }

    @Override
    public Optional<Job> job(String namespace, String jobId) {
        return snapshot.get(NomadTables.JOBS, NomadTables.key(namespace, jobId));
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
    public SchedulerConfiguration configuration() {
        return snapshot.get(NomadTables.SCHEDULER_CONFIG, SchedulerConfig.KEY).orElse(SchedulerConfig.DEFAULT)
                .forScheduler();
    }
}
