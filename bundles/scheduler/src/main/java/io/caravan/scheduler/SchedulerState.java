package io.caravan.scheduler;

import java.util.List;
import java.util.Optional;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.Deployment;
import io.caravan.api.model.Job;
import io.caravan.api.model.Node;

/** A read-only, consistent snapshot of cluster state at {@link #index()}. */
public interface SchedulerState {
    long index();

    Optional<Job> job(String namespace, String jobId);

    /** Every node, in ID order (the scheduler shuffles). */
    List<Node> nodes();

    Optional<Node> node(String nodeId);

    /** All allocations of a job, terminal ones included. */
    List<Allocation> allocsByJob(String namespace, String jobId);

    /** All allocations on a node, terminal ones included. */
    List<Allocation> allocsByNode(String nodeId);

    /** What the node's live allocations use; the server's state keeps it per node rather than recounting. */
    default NodeLoad load(String nodeId) {
        return NodeLoad.of(allocsByNode(nodeId));
    }

    /** The stored allocation with this ID on that node, terminal or not. */
    default Optional<Allocation> alloc(String nodeId, String allocId) {
        return allocsByNode(nodeId).stream().filter(a -> a.id().equals(allocId)).findFirst();
    }

    SchedulerConfiguration configuration();

    /**
     * The configuration that placing {@code job} uses: the cluster's, with what the job's node pool sets instead
     * (its algorithm, memory oversubscription). {@code job} may be null (a job that is gone).
     */
    default SchedulerConfiguration configuration(Job job) {
        return configuration();
    }

    /** The job's most recently created deployment, whatever its status (none by default). */
    default Optional<Deployment> latestDeployment(String namespace, String jobId) {
        return Optional.empty();
    }
}
