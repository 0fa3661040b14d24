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

    /** The allocation's group in its job, or null without a job. */
    public TaskGroup lookupTaskGroup() {
        return job == null ? null : job.lookupTaskGroup(taskGroup);
    }

    /**
     * Nomad's {@code NeedsToReconnect}: the last client-status change the servers recorded is to {@code unknown}
     * (its node was disconnected) and no reconnect has been recorded since, whatever the client reported meanwhile.
     */
    public boolean needsToReconnect() {
        for (int i = allocStates.size() - 1; i >= 0; i--) {
            AllocState s = allocStates.get(i);
            if (AllocState.CLIENT_STATUS.equals(s.field())) {
                return CLIENT_UNKNOWN.equals(s.value());
            }
        }
        return false;
    }

    /** Unix nanoseconds of the last recorded change to {@code unknown}, or -1 when there is none. */
    public long lastUnknownNanos() {
        for (int i = allocStates.size() - 1; i >= 0; i--) {
            AllocState s = allocStates.get(i);
            if (AllocState.CLIENT_STATUS.equals(s.field()) && CLIENT_UNKNOWN.equals(s.value()) && s.time() != null) {
                return s.time().getEpochSecond() * 1_000_000_000L + s.time().getNano();
            }
        }
        return -1;
    }

    public Allocation withClientStatus(String clientStatus, String clientDescription) {
        return toBuilder().clientStatus(clientStatus).clientDescription(clientDescription).build();
    }

    public Allocation withDesiredStatus(String desiredStatus, String desiredDescription) {
        return toBuilder().desiredStatus(desiredStatus).desiredDescription(desiredDescription).build();
    }

    public Allocation withIndexes(long createIndex, long modifyIndex, long allocModifyIndex) {
        return toBuilder().createIndex(createIndex).modifyIndex(modifyIndex).allocModifyIndex(allocModifyIndex)
                .build();
    }

    /** A recorded client-status change ({@code Field} is "ClientStatus"), used for disconnect timing. */
    public record AllocState(String field, String value, @GoTime Instant time) {
        public static final String CLIENT_STATUS = "ClientStatus";
    }

    /** A copy to change: {@code x.toBuilder().field(v).build()}. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Sets any field of a copy; generated from the record's components, keep it in their order. */
    public static final class Builder {
        private String id;
        private String namespace;
        private String evalId;
        private String name;
        private String nodeId;
        private String nodeName;
        private String jobId;
        private Job job;
        private String taskGroup;
        private AllocatedResources allocatedResources;
        private AllocMetric metrics;
        private String desiredStatus;
        private String desiredDescription;
        private DesiredTransition desiredTransition;
        private String clientStatus;
        private String clientDescription;
        private Map<String, TaskState> taskStates;
        private List<AllocState> allocStates;
        private String previousAllocation;
        private String nextAllocation;
        private String deploymentId;
        private AllocDeploymentStatus deploymentStatus;
        private RescheduleTracker rescheduleTracker;
        private Map<String, Object> networkStatus;
        private String followupEvalId;
        private List<String> preemptedAllocations;
        private String preemptedByAllocation;
        private String signingKeyId;
        private long createIndex;
        private long modifyIndex;
        private long allocModifyIndex;
        private long createTime;
        private long modifyTime;

        private Builder(Allocation from) {
            id = from.id;
            namespace = from.namespace;
            evalId = from.evalId;
            name = from.name;
            nodeId = from.nodeId;
            nodeName = from.nodeName;
            jobId = from.jobId;
            job = from.job;
            taskGroup = from.taskGroup;
            allocatedResources = from.allocatedResources;
            metrics = from.metrics;
            desiredStatus = from.desiredStatus;
            desiredDescription = from.desiredDescription;
            desiredTransition = from.desiredTransition;
            clientStatus = from.clientStatus;
            clientDescription = from.clientDescription;
            taskStates = from.taskStates;
            allocStates = from.allocStates;
            previousAllocation = from.previousAllocation;
            nextAllocation = from.nextAllocation;
            deploymentId = from.deploymentId;
            deploymentStatus = from.deploymentStatus;
            rescheduleTracker = from.rescheduleTracker;
            networkStatus = from.networkStatus;
            followupEvalId = from.followupEvalId;
            preemptedAllocations = from.preemptedAllocations;
            preemptedByAllocation = from.preemptedByAllocation;
            signingKeyId = from.signingKeyId;
            createIndex = from.createIndex;
            modifyIndex = from.modifyIndex;
            allocModifyIndex = from.allocModifyIndex;
            createTime = from.createTime;
            modifyTime = from.modifyTime;
        }

        public Builder id(String id) {
            this.id = id;
            return this;
        }

        public Builder namespace(String namespace) {
            this.namespace = namespace;
            return this;
        }

        public Builder evalId(String evalId) {
            this.evalId = evalId;
            return this;
        }

        public Builder name(String name) {
            this.name = name;
            return this;
        }

        public Builder nodeId(String nodeId) {
            this.nodeId = nodeId;
            return this;
        }

        public Builder nodeName(String nodeName) {
            this.nodeName = nodeName;
            return this;
        }

        public Builder jobId(String jobId) {
            this.jobId = jobId;
            return this;
        }

        public Builder job(Job job) {
            this.job = job;
            return this;
        }

        public Builder taskGroup(String taskGroup) {
            this.taskGroup = taskGroup;
            return this;
        }

        public Builder allocatedResources(AllocatedResources allocatedResources) {
            this.allocatedResources = allocatedResources;
            return this;
        }

        public Builder metrics(AllocMetric metrics) {
            this.metrics = metrics;
            return this;
        }

        public Builder desiredStatus(String desiredStatus) {
            this.desiredStatus = desiredStatus;
            return this;
        }

        public Builder desiredDescription(String desiredDescription) {
            this.desiredDescription = desiredDescription;
            return this;
        }

        public Builder desiredTransition(DesiredTransition desiredTransition) {
            this.desiredTransition = desiredTransition;
            return this;
        }

        public Builder clientStatus(String clientStatus) {
            this.clientStatus = clientStatus;
            return this;
        }

        public Builder clientDescription(String clientDescription) {
            this.clientDescription = clientDescription;
            return this;
        }

        public Builder taskStates(Map<String, TaskState> taskStates) {
            this.taskStates = taskStates;
            return this;
        }

        public Builder allocStates(List<AllocState> allocStates) {
            this.allocStates = allocStates;
            return this;
        }

        public Builder previousAllocation(String previousAllocation) {
            this.previousAllocation = previousAllocation;
            return this;
        }

        public Builder nextAllocation(String nextAllocation) {
            this.nextAllocation = nextAllocation;
            return this;
        }

        public Builder deploymentId(String deploymentId) {
            this.deploymentId = deploymentId;
            return this;
        }

        public Builder deploymentStatus(AllocDeploymentStatus deploymentStatus) {
            this.deploymentStatus = deploymentStatus;
            return this;
        }

        public Builder rescheduleTracker(RescheduleTracker rescheduleTracker) {
            this.rescheduleTracker = rescheduleTracker;
            return this;
        }

        public Builder networkStatus(Map<String, Object> networkStatus) {
            this.networkStatus = networkStatus;
            return this;
        }

        public Builder followupEvalId(String followupEvalId) {
            this.followupEvalId = followupEvalId;
            return this;
        }

        public Builder preemptedAllocations(List<String> preemptedAllocations) {
            this.preemptedAllocations = preemptedAllocations;
            return this;
        }

        public Builder preemptedByAllocation(String preemptedByAllocation) {
            this.preemptedByAllocation = preemptedByAllocation;
            return this;
        }

        public Builder signingKeyId(String signingKeyId) {
            this.signingKeyId = signingKeyId;
            return this;
        }

        public Builder createIndex(long createIndex) {
            this.createIndex = createIndex;
            return this;
        }

        public Builder modifyIndex(long modifyIndex) {
            this.modifyIndex = modifyIndex;
            return this;
        }

        public Builder allocModifyIndex(long allocModifyIndex) {
            this.allocModifyIndex = allocModifyIndex;
            return this;
        }

        public Builder createTime(long createTime) {
            this.createTime = createTime;
            return this;
        }

        public Builder modifyTime(long modifyTime) {
            this.modifyTime = modifyTime;
            return this;
        }

        public Allocation build() {
            return new Allocation(
                id, namespace, evalId, name, nodeId, nodeName, jobId, job, taskGroup, allocatedResources, metrics,
                desiredStatus, desiredDescription, desiredTransition, clientStatus, clientDescription, taskStates,
                allocStates, previousAllocation, nextAllocation, deploymentId, deploymentStatus, rescheduleTracker,
                networkStatus, followupEvalId, preemptedAllocations, preemptedByAllocation, signingKeyId, createIndex,
                modifyIndex, allocModifyIndex, createTime, modifyTime);
        }
    }
}
