package io.caravan.client.internal.alloc;

import java.util.Map;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.TaskState;

/**
 * An allocation's client status from its task states, as Nomad's {@code getClientStatus} computes it: any failed
 * task → failed; else any running → running; else any pending → pending; else complete.
 */
public record ClientStatus(String status, String description) {

    public static ClientStatus of(Map<String, TaskState> states) {
        boolean pending = false;
        boolean running = false;
        boolean dead = false;
        boolean failed = false;
        for (TaskState s : states.values()) {
            switch (s.state()) {
                case TaskState.STATE_RUNNING -> running = true;
                case TaskState.STATE_PENDING -> pending = true;
                case TaskState.STATE_DEAD -> {
                    if (s.failed()) {
                        failed = true;
                    } else {
                        dead = true;
                    }
                }
                default -> { }
            }
        }
        if (failed) {
            return new ClientStatus(Allocation.CLIENT_FAILED, "Failed tasks");
        } else if (running) {
            return new ClientStatus(Allocation.CLIENT_RUNNING, "Tasks are running");
        } else if (pending) {
            return new ClientStatus(Allocation.CLIENT_PENDING, "No tasks have started");
        } else if (dead) {
            return new ClientStatus(Allocation.CLIENT_COMPLETE, "All tasks have completed");
        }
        return new ClientStatus(Allocation.CLIENT_PENDING, "No tasks have started");
    }

    /**
     * What {@code Node.UpdateAlloc} needs of an allocation: its ID, client status and description, and task states
     * (the job is left out; the server reads only those fields).
     */
    public static Allocation update(Allocation a, ClientStatus status, Map<String, TaskState> states) {
        return new Allocation(a.id(), a.namespace(), a.evalId(), a.name(), a.nodeId(), a.nodeName(), a.jobId(), null,
                a.taskGroup(), null, null, a.desiredStatus(), a.desiredDescription(), a.desiredTransition(),
                status.status(), status.description(), states, a.allocStates(), a.previousAllocation(),
                a.nextAllocation(), a.deploymentId(), a.deploymentStatus(), a.rescheduleTracker(), a.networkStatus(),
                a.followupEvalId(), a.preemptedAllocations(), a.preemptedByAllocation(), a.signingKeyId(),
                a.createIndex(), a.modifyIndex(), a.allocModifyIndex(), a.createTime(), a.modifyTime());
    }
}
