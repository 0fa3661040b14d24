package io.caravan.api.model;

import com.fasterxml.jackson.annotation.JsonProperty;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * An evaluation. {@code Wait} is {@code waitDuration} in Java (a record cannot have a {@code wait()});
 * {@code RelatedEvals} (eval stubs) are kept raw. {@code CreateTime}/{@code ModifyTime} are Unix nanoseconds.
 */
public record Evaluation(
        String id,
        String namespace,
        int priority,
        String type,
        String triggeredBy,
        String jobId,
        long jobModifyIndex,
        String nodeId,
        long nodeModifyIndex,
        String deploymentId,
        String status,
        String statusDescription,
        @JsonProperty("Wait") @NanoDuration Duration waitDuration,
        @GoTime Instant waitUntil,
        String nextEval,
        String previousEval,
        String blockedEval,
        List<Map<String, Object>> relatedEvals,
        Map<String, AllocMetric> failedTgAllocs,
        Map<String, Boolean> classEligibility,
        String quotaLimitReached,
        boolean escapedComputedClass,
        boolean annotatePlan,
        Map<String, Integer> queuedAllocations,
        String leaderAcl,
        long snapshotIndex,
        long createIndex,
        long modifyIndex,
        long createTime,
        long modifyTime) {

    public static final String STATUS_BLOCKED = "blocked";
    public static final String STATUS_PENDING = "pending";
    public static final String STATUS_COMPLETE = "complete";
    public static final String STATUS_FAILED = "failed";
    /** One "l", unlike {@link Deployment#STATUS_CANCELLED}. */
    public static final String STATUS_CANCELED = "canceled";

    public static final String TRIGGER_JOB_REGISTER = "job-register";
    public static final String TRIGGER_JOB_DEREGISTER = "job-deregister";
    public static final String TRIGGER_PERIODIC_JOB = "periodic-job";
    public static final String TRIGGER_NODE_DRAIN = "node-drain";
    public static final String TRIGGER_NODE_UPDATE = "node-update";
    public static final String TRIGGER_ALLOC_STOP = "alloc-stop";
    public static final String TRIGGER_SCHEDULED = "scheduled";
    public static final String TRIGGER_ROLLING_UPDATE = "rolling-update";
    public static final String TRIGGER_DEPLOYMENT_WATCHER = "deployment-watcher";
    public static final String TRIGGER_FAILED_FOLLOW_UP = "failed-follow-up";
    public static final String TRIGGER_MAX_PLANS = "max-plan-attempts";
    public static final String TRIGGER_RETRY_FAILED_ALLOC = "alloc-failure";
    public static final String TRIGGER_QUEUED_ALLOCS = "queued-allocs";
    public static final String TRIGGER_PREEMPTION = "preemption";
    public static final String TRIGGER_SCALING = "job-scaling";
    public static final String TRIGGER_MAX_DISCONNECT_TIMEOUT = "max-disconnect-timeout";
    public static final String TRIGGER_RECONNECT = "reconnect";
    public static final String TRIGGER_ALLOC_RESCHEDULE = "alloc-reschedule";

    public Evaluation {
        waitDuration = waitDuration == null ? Duration.ZERO : waitDuration;
        relatedEvals = relatedEvals == null ? List.of() : rawMaps(relatedEvals);
        failedTgAllocs = Copy.map(failedTgAllocs);
        classEligibility = Copy.map(classEligibility);
        queuedAllocations = Copy.map(queuedAllocations);
    }

    /** A new evaluation for a job, as a job register or deregister creates it; indexes are set when applied. */
    public static Evaluation forJob(String id, Job job, String triggeredBy, long nowNanos) {
        return new Evaluation(id, job.namespace(), job.priority() == null ? 50 : job.priority(), job.type(),
                triggeredBy, job.id(), 0, "", 0, "", STATUS_PENDING, "", Duration.ZERO, null, "", "", "",
                List.of(), Map.of(), Map.of(), "", false, false, Map.of(), "", 0, 0, 0, nowNanos, nowNanos);
    }

    public Evaluation withJobModifyIndex(long jobModifyIndex) {
        return new Evaluation(id, namespace, priority, type, triggeredBy, jobId, jobModifyIndex, nodeId,
                nodeModifyIndex, deploymentId, status, statusDescription, waitDuration, waitUntil, nextEval,
                previousEval, blockedEval, relatedEvals, failedTgAllocs, classEligibility, quotaLimitReached,
                escapedComputedClass, annotatePlan, queuedAllocations, leaderAcl, snapshotIndex, createIndex,
                modifyIndex, createTime, modifyTime);
    }

    public boolean terminal() {
        return STATUS_COMPLETE.equals(status) || STATUS_FAILED.equals(status) || STATUS_CANCELED.equals(status);
    }

    public Evaluation withStatus(String status, String statusDescription) {
        return new Evaluation(id, namespace, priority, type, triggeredBy, jobId, jobModifyIndex, nodeId,
                nodeModifyIndex, deploymentId, status, statusDescription, waitDuration, waitUntil, nextEval,
                previousEval, blockedEval, relatedEvals, failedTgAllocs, classEligibility, quotaLimitReached,
                escapedComputedClass, annotatePlan, queuedAllocations, leaderAcl, snapshotIndex, createIndex,
                modifyIndex, createTime, modifyTime);
    }

    public Evaluation withIndexes(long createIndex, long modifyIndex) {
        return new Evaluation(id, namespace, priority, type, triggeredBy, jobId, jobModifyIndex, nodeId,
                nodeModifyIndex, deploymentId, status, statusDescription, waitDuration, waitUntil, nextEval,
                previousEval, blockedEval, relatedEvals, failedTgAllocs, classEligibility, quotaLimitReached,
                escapedComputedClass, annotatePlan, queuedAllocations, leaderAcl, snapshotIndex, createIndex,
                modifyIndex, createTime, modifyTime);
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> rawMaps(List<Map<String, Object>> maps) {
        return (List<Map<String, Object>>) Copy.freeze(maps);
    }
}
