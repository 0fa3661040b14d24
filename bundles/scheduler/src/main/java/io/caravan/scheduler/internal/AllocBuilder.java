package io.caravan.scheduler.internal;

import java.util.ArrayList;
import java.util.List;

import io.caravan.api.model.AllocMetric;
import io.caravan.api.model.AllocatedResources;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Job;
import io.caravan.api.model.RescheduleTracker;

/**
 * Copies an {@link Allocation} with the fields the scheduler changes. The api record only offers a few
 * {@code with*} methods, and the scheduler must not edit the api bundle.
 */
public final class AllocBuilder {
    private final Allocation base;
    private String id;
    private String evalId;
    private String name;
    private String nodeId;
    private String nodeName;
    private Job job;
    private AllocatedResources resources;
    private AllocMetric metrics;
    private String desiredStatus;
    private String desiredDescription;
    private String clientStatus;
    private List<Allocation.AllocState> allocStates;
    private String previousAllocation;
    private String nextAllocation;
    private RescheduleTracker rescheduleTracker;
    private String followupEvalId;
    private List<String> preemptedAllocations;
    private String preemptedByAllocation;
    private long modifyTime;

    private AllocBuilder(Allocation base) {
        this.base = base;
        id = base.id();
        evalId = base.evalId();
        name = base.name();
        nodeId = base.nodeId();
        nodeName = base.nodeName();
        job = base.job();
        resources = base.allocatedResources();
        metrics = base.metrics();
        desiredStatus = base.desiredStatus();
        desiredDescription = base.desiredDescription();
        clientStatus = base.clientStatus();
        allocStates = base.allocStates();
        previousAllocation = base.previousAllocation();
        nextAllocation = base.nextAllocation();
        rescheduleTracker = base.rescheduleTracker();
        followupEvalId = base.followupEvalId();
        preemptedAllocations = base.preemptedAllocations();
        preemptedByAllocation = base.preemptedByAllocation();
        modifyTime = base.modifyTime();
    }

    public static AllocBuilder from(Allocation alloc) {
        return new AllocBuilder(alloc);
    }

    /** A fresh allocation: everything the scheduler does not set is empty. */
    public static Allocation create(String id, String namespace, String evalId, String name, String nodeId,
                                    String nodeName, Job job, String taskGroup, AllocatedResources resources,
                                    AllocMetric metrics, String previousAllocation, RescheduleTracker tracker,
                                    long nowNanos) {
        return new Allocation(id, namespace, evalId, name, nodeId, nodeName, job.id(), job, taskGroup, resources,
                metrics, Allocation.DESIRED_RUN, "", null, Allocation.CLIENT_PENDING, "", null, null,
                previousAllocation == null ? "" : previousAllocation, "", "", null, tracker, null, "", null, "", "",
                0, 0, 0, nowNanos, nowNanos);
    }

    public AllocBuilder job(Job job) {
        this.job = job;
        return this;
    }

    public AllocBuilder evalId(String evalId) {
        this.evalId = evalId;
        return this;
    }

    public AllocBuilder metrics(AllocMetric metrics) {
        this.metrics = metrics;
        return this;
    }

    public AllocBuilder desired(String status, String description) {
        this.desiredStatus = status;
        this.desiredDescription = description;
        return this;
    }

    /** Sets the client status and, as Nomad's server does for {@code lost}/{@code unknown}, records the change. */
    public AllocBuilder serverClientStatus(String status, long nowNanos) {
        this.clientStatus = status;
        return recordClientStatus(status, nowNanos);
    }

    /** Records a client-status change in {@code AllocStates} (a reconnect records the status the client reported). */
    public AllocBuilder recordClientStatus(String status, long nowNanos) {
        List<Allocation.AllocState> states = new ArrayList<>(allocStates);
        states.add(new Allocation.AllocState(Allocation.AllocState.CLIENT_STATUS, status,
                java.time.Instant.ofEpochSecond(0, nowNanos)));
        this.allocStates = states;
        return this;
    }

    public AllocBuilder nextAllocation(String nextAllocation) {
        this.nextAllocation = nextAllocation;
        return this;
    }

    public AllocBuilder followupEvalId(String followupEvalId) {
        this.followupEvalId = followupEvalId;
        return this;
    }

    /** The allocations this one evicts to fit. */
    public AllocBuilder preemptedAllocations(List<String> ids) {
        this.preemptedAllocations = ids;
        return this;
    }

    /** The allocation that evicts this one. */
    public AllocBuilder preemptedBy(String allocId) {
        this.preemptedByAllocation = allocId;
        return this;
    }

    public AllocBuilder modifyTime(long modifyTime) {
        this.modifyTime = modifyTime;
        return this;
    }

    public Allocation build() {
        return new Allocation(id, base.namespace(), evalId, name, nodeId, nodeName, base.jobId(), job,
                base.taskGroup(), resources, metrics, desiredStatus, desiredDescription, base.desiredTransition(),
                clientStatus, base.clientDescription(), base.taskStates(), allocStates, previousAllocation,
                nextAllocation, base.deploymentId(), base.deploymentStatus(), rescheduleTracker, base.networkStatus(),
                followupEvalId, preemptedAllocations, preemptedByAllocation, base.signingKeyId(),
                base.createIndex(), base.modifyIndex(), base.allocModifyIndex(), base.createTime(), modifyTime);
    }
}
