package io.caravan.api.model;

import java.util.List;
import java.util.Map;

/** An entry of {@code GET /v1/allocations} and {@code /v1/job/:id/allocations}. */
public record AllocListStub(
        String id,
        String evalId,
        String name,
        String namespace,
        String nodeId,
        String nodeName,
        String jobId,
        String jobType,
        long jobVersion,
        String taskGroup,
        AllocatedResources allocatedResources,
        String desiredStatus,
        String desiredDescription,
        String clientStatus,
        String clientDescription,
        DesiredTransition desiredTransition,
        Map<String, TaskState> taskStates,
        AllocDeploymentStatus deploymentStatus,
        String followupEvalId,
        String nextAllocation,
        RescheduleTracker rescheduleTracker,
        List<String> preemptedAllocations,
        String preemptedByAllocation,
        long createIndex,
        long modifyIndex,
        long createTime,
        long modifyTime) {

    public AllocListStub {
        desiredTransition = desiredTransition == null ? new DesiredTransition(null, null, null, null, null) : desiredTransition;
        taskStates = Copy.map(taskStates);
        preemptedAllocations = Copy.list(preemptedAllocations);
    }

    /** Nomad's {@code Allocation.Stub()}; {@code AllocatedResources} is only listed with {@code ?resources=true}. */
    public static AllocListStub of(Allocation alloc, boolean withResources) {
        Job job = alloc.job();
        return new AllocListStub(alloc.id(), alloc.evalId(), alloc.name(), alloc.namespace(), alloc.nodeId(),
                alloc.nodeName(), alloc.jobId(), job == null ? null : job.type(),
                job == null || job.version() == null ? 0 : job.version(), alloc.taskGroup(),
                withResources ? alloc.allocatedResources() : null, alloc.desiredStatus(), alloc.desiredDescription(),
                alloc.clientStatus(), alloc.clientDescription(), alloc.desiredTransition(), alloc.taskStates(),
                alloc.deploymentStatus(), alloc.followupEvalId(), alloc.nextAllocation(), alloc.rescheduleTracker(),
                alloc.preemptedAllocations(), alloc.preemptedByAllocation(), alloc.createIndex(),
                alloc.modifyIndex(), alloc.createTime(), alloc.modifyTime());
    }
}
