package io.caravan.scheduler.internal;

import java.time.Instant;
import java.util.Map;

import io.caravan.api.model.AllocMetric;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;

/** Copies an {@link Evaluation} with the outcome fields the scheduler records (the api record has few withers). */
public final class EvalBuilder {
    private final Evaluation base;
    private String id;
    private String status;
    private String statusDescription;
    private String triggeredBy;
    private Instant waitUntil;
    private String previousEval;
    private String blockedEval;
    private Map<String, AllocMetric> failedTgAllocs;
    private Map<String, Boolean> classEligibility;
    private boolean escapedComputedClass;
    private Map<String, Integer> queuedAllocations;
    private long snapshotIndex;
    private long jobModifyIndex;
    private long createTime;
    private long modifyTime;

    private EvalBuilder(Evaluation base) {
        this.base = base;
        id = base.id();
        status = base.status();
        statusDescription = base.statusDescription();
        triggeredBy = base.triggeredBy();
        waitUntil = base.waitUntil();
        previousEval = base.previousEval();
        blockedEval = base.blockedEval();
        failedTgAllocs = base.failedTgAllocs();
        classEligibility = base.classEligibility();
        escapedComputedClass = base.escapedComputedClass();
        queuedAllocations = base.queuedAllocations();
        snapshotIndex = base.snapshotIndex();
        jobModifyIndex = base.jobModifyIndex();
        createTime = base.createTime();
        modifyTime = base.modifyTime();
    }

    public static EvalBuilder from(Evaluation eval) {
        return new EvalBuilder(eval);
    }

    /**
     * A new evaluation for the same job as {@code parent}: the shape of Nomad's blocked and follow-up evals.
     * Indexes are left for the server to set.
     */
    public static EvalBuilder followUp(Evaluation parent, Job job, String id, String triggeredBy, String status,
                                       String description, long nowNanos) {
        long jobModifyIndex = job != null && job.jobModifyIndex() != null ? job.jobModifyIndex() : parent.jobModifyIndex();
        Evaluation fresh = new Evaluation(id, parent.namespace(), parent.priority(), parent.type(), triggeredBy,
                parent.jobId(), jobModifyIndex, "", 0, "", status, description, null, null, "", parent.id(), "",
                null, null, null, "", false, false, null, "", 0, 0, 0, nowNanos, nowNanos);
        return new EvalBuilder(fresh);
    }

    public EvalBuilder status(String status, String description) {
        this.status = status;
        this.statusDescription = description;
        return this;
    }

    public EvalBuilder waitUntil(Instant waitUntil) {
        this.waitUntil = waitUntil;
        return this;
    }

    public EvalBuilder blockedEval(String blockedEval) {
        this.blockedEval = blockedEval;
        return this;
    }

    public EvalBuilder failedTgAllocs(Map<String, AllocMetric> failed) {
        this.failedTgAllocs = failed;
        return this;
    }

    public EvalBuilder classEligibility(Map<String, Boolean> classEligibility, boolean escaped) {
        this.classEligibility = classEligibility;
        this.escapedComputedClass = escaped;
        return this;
    }

    public EvalBuilder queuedAllocations(Map<String, Integer> queued) {
        this.queuedAllocations = queued;
        return this;
    }

    public EvalBuilder snapshotIndex(long snapshotIndex) {
        this.snapshotIndex = snapshotIndex;
        return this;
    }

    public EvalBuilder modifyTime(long modifyTime) {
        this.modifyTime = modifyTime;
        return this;
    }

    public Evaluation build() {
        return new Evaluation(id, base.namespace(), base.priority(), base.type(), triggeredBy, base.jobId(),
                jobModifyIndex, base.nodeId(), base.nodeModifyIndex(), base.deploymentId(), status, statusDescription,
                base.waitDuration(), waitUntil, base.nextEval(), previousEval, blockedEval, base.relatedEvals(),
                failedTgAllocs, classEligibility, base.quotaLimitReached(), escapedComputedClass, base.annotatePlan(),
                queuedAllocations, base.leaderAcl(), snapshotIndex, base.createIndex(), base.modifyIndex(), createTime,
                modifyTime);
    }
}
