package io.caravan.api.model;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * An allocation: one placement of a task group on a node. {@code Name} is {@code "<job>.<group>[<index>]"};
 * {@code NetworkStatus} is kept raw; {@code CreateTime}/{@code ModifyTime} are Unix nanoseconds.
 */
public record Allocation(
        String id,
        String namespace,
        String evalId,
        String name,
        String nodeId,
        String nodeName,
        String jobId,
        Job job,
        String taskGroup,
        AllocatedResources allocatedResources,
        AllocMetric metrics,
        String desiredStatus,
        String desiredDescription,
        DesiredTransition desiredTransition,
        String clientStatus,
        String clientDescription,
        Map<String, TaskState> taskStates,
        List<AllocState> allocStates,
        String previousAllocation,
        String nextAllocation,
        String deploymentId,
        AllocDeploymentStatus deploymentStatus,
        RescheduleTracker rescheduleTracker,
        Map<String, Object> networkStatus,
        String followupEvalId,
        List<String> preemptedAllocations,
        String preemptedByAllocation,
        String signingKeyId,
        long createIndex,
        long modifyIndex,
        long allocModifyIndex,
        long createTime,
        long modifyTime) {

    public static final String DESIRED_RUN = "run";
    public static final String DESIRED_STOP = "stop";
    public static final String DESIRED_EVICT = "evict";

    public static final String CLIENT_PENDING = "pending";
    public static final String CLIENT_RUNNING = "running";
    public static final String CLIENT_COMPLETE = "complete";
    public static final String CLIENT_FAILED = "failed";
    public static final String CLIENT_LOST = "lost";
    public static final String CLIENT_UNKNOWN = "unknown";

    public Allocation {
        desiredTransition = desiredTransition == null ? new DesiredTransition(null, null, null, null, null) : desiredTransition;
        taskStates = Copy.map(taskStates);
        allocStates = Copy.list(allocStates);
        networkStatus = Copy.rawOrNull(networkStatus);
        preemptedAllocations = Copy.list(preemptedAllocations);
    }

    /** Nomad's {@code TerminalStatus()}: desired stop or evict, or a terminal client status. */
    public boolean terminal() {
        return DESIRED_STOP.equals(desiredStatus) || DESIRED_EVICT.equals(desiredStatus)
                || CLIENT_COMPLETE.equals(clientStatus) || CLIENT_FAILED.equals(clientStatus)
                || CLIENT_LOST.equals(clientStatus);
    }

    public Allocation withClientStatus(String clientStatus, String clientDescription) {
        return copy(desiredStatus, desiredDescription, clientStatus, clientDescription, createIndex, modifyIndex, allocModifyIndex);
    }

    public Allocation withDesiredStatus(String desiredStatus, String desiredDescription) {
        return copy(desiredStatus, desiredDescription, clientStatus, clientDescription, createIndex, modifyIndex, allocModifyIndex);
    }

    public Allocation withIndexes(long createIndex, long modifyIndex, long allocModifyIndex) {
        return copy(desiredStatus, desiredDescription, clientStatus, clientDescription, createIndex, modifyIndex, allocModifyIndex);
    }

    private Allocation copy(String desiredStatus, String desiredDescription, String clientStatus, String clientDescription,
                            long createIndex, long modifyIndex, long allocModifyIndex) {
        return new Allocation(id, namespace, evalId, name, nodeId, nodeName, jobId, job, taskGroup, allocatedResources,
                metrics, desiredStatus, desiredDescription, desiredTransition, clientStatus, clientDescription,
                taskStates, allocStates, previousAllocation, nextAllocation, deploymentId, deploymentStatus,
                rescheduleTracker, networkStatus, followupEvalId, preemptedAllocations, preemptedByAllocation,
                signingKeyId, createIndex, modifyIndex, allocModifyIndex, createTime, modifyTime);
    }

    /** A recorded client-status change ({@code Field} is "ClientStatus"), used for disconnect timing. */
    public record AllocState(String field, String value, @GoTime Instant time) {
    }
}
