package io.caravan.scheduler.testing;

import java.time.Instant;
import java.util.Map;

import io.caravan.api.model.AllocatedResources;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.DesiredTransition;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.api.model.RescheduleTracker;
import io.caravan.api.model.TaskState;

/** Existing allocations for tests. */
public final class TestAllocs {
    private TestAllocs() {
    }

    /** A running allocation of {@code job}'s first group: 500 MHz, 256 MB, 300 MB disk. */
    public static Allocation running(Job job, String id, int index, String nodeId) {
        return alloc(job, id, job.taskGroups().get(0).name(), index, nodeId, Allocation.DESIRED_RUN,
                Allocation.CLIENT_RUNNING, null, null, null, 0);
    }

    public static Allocation alloc(Job job, String id, String group, int index, String nodeId, String desired,
                                   String client, DesiredTransition transition, RescheduleTracker tracker,
                                   Map<String, TaskState> taskStates, long modifyTimeNanos) {
        AllocatedResources resources = new AllocatedResources(
                Map.of("server", new AllocatedResources.TaskResources(new AllocatedResources.Cpu(500, null),
                        new AllocatedResources.Memory(256, 0), null, null)),
                null, new AllocatedResources.Shared(null, 300, null));
        return new Allocation(id, job.namespace(), "eval0", job.id() + "." + group + "[" + index + "]", nodeId,
                nodeId, job.id(), job, group, resources, null, desired, "", transition, client, "", taskStates,
                null, "", "", "", null, tracker, null, "", null, "", "", 10, 10, 10, modifyTimeNanos, modifyTimeNanos);
    }

    /** A failed allocation whose task finished at {@code finishedAt}. */
    public static Allocation failed(Job job, String id, int index, String nodeId, Instant finishedAt,
                                    RescheduleTracker tracker) {
        TaskState dead = new TaskState(TaskState.STATE_DEAD, true, 0, null, null, finishedAt, null, null);
        return alloc(job, id, job.taskGroups().get(0).name(), index, nodeId, Allocation.DESIRED_RUN,
                Allocation.CLIENT_FAILED, null, tracker, Map.of("server", dead), 0);
    }

    public static Allocation complete(Job job, String id, int index, String nodeId) {
        TaskState dead = new TaskState(TaskState.STATE_DEAD, false, 0, null, null, Instant.EPOCH, null, null);
        return alloc(job, id, job.taskGroups().get(0).name(), index, nodeId, Allocation.DESIRED_RUN,
                Allocation.CLIENT_COMPLETE, null, null, Map.of("server", dead), 0);
    }

    public static DesiredTransition migrate() {
        return new DesiredTransition(true, null, null, null, null);
    }

    public static Evaluation eval(String id, Job job, String trigger) {
        return Evaluation.forJob(id, job, trigger, 0);
    }
}
