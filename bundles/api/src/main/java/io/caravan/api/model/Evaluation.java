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
        return toBuilder().jobModifyIndex(jobModifyIndex).build();
    }

    public boolean terminal() {
        return STATUS_COMPLETE.equals(status) || STATUS_FAILED.equals(status) || STATUS_CANCELED.equals(status);
    }

    public Evaluation withStatus(String status, String statusDescription) {
        return toBuilder().status(status).statusDescription(statusDescription).build();
    }

    public Evaluation withIndexes(long createIndex, long modifyIndex) {
        return toBuilder().createIndex(createIndex).modifyIndex(modifyIndex).build();
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> rawMaps(List<Map<String, Object>> maps) {
        return (List<Map<String, Object>>) Copy.freeze(maps);
    }

    /** A copy to change: {@code x.toBuilder().field(v).build()}. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Sets any field of a copy; generated from the record's components, keep it in their order. */
    public static final class Builder {
        private String id;
        private String namespace;
        private int priority;
        private String type;
        private String triggeredBy;
        private String jobId;
        private long jobModifyIndex;
        private String nodeId;
        private long nodeModifyIndex;
        private String deploymentId;
        private String status;
        private String statusDescription;
        private Duration waitDuration;
        private Instant waitUntil;
        private String nextEval;
        private String previousEval;
        private String blockedEval;
        private List<Map<String, Object>> relatedEvals;
        private Map<String, AllocMetric> failedTgAllocs;
        private Map<String, Boolean> classEligibility;
        private String quotaLimitReached;
        private boolean escapedComputedClass;
        private boolean annotatePlan;
        private Map<String, Integer> queuedAllocations;
        private String leaderAcl;
        private long snapshotIndex;
        private long createIndex;
        private long modifyIndex;
        private long createTime;
        private long modifyTime;

        private Builder(Evaluation from) {
            id = from.id;
            namespace = from.namespace;
            priority = from.priority;
            type = from.type;
            triggeredBy = from.triggeredBy;
            jobId = from.jobId;
            jobModifyIndex = from.jobModifyIndex;
            nodeId = from.nodeId;
            nodeModifyIndex = from.nodeModifyIndex;
            deploymentId = from.deploymentId;
            status = from.status;
            statusDescription = from.statusDescription;
            waitDuration = from.waitDuration;
            waitUntil = from.waitUntil;
            nextEval = from.nextEval;
            previousEval = from.previousEval;
            blockedEval = from.blockedEval;
            relatedEvals = from.relatedEvals;
            failedTgAllocs = from.failedTgAllocs;
            classEligibility = from.classEligibility;
            quotaLimitReached = from.quotaLimitReached;
            escapedComputedClass = from.escapedComputedClass;
            annotatePlan = from.annotatePlan;
            queuedAllocations = from.queuedAllocations;
            leaderAcl = from.leaderAcl;
            snapshotIndex = from.snapshotIndex;
            createIndex = from.createIndex;
            modifyIndex = from.modifyIndex;
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

        public Builder priority(int priority) {
            this.priority = priority;
            return this;
        }

        public Builder type(String type) {
            this.type = type;
            return this;
        }

        public Builder triggeredBy(String triggeredBy) {
            this.triggeredBy = triggeredBy;
            return this;
        }

        public Builder jobId(String jobId) {
            this.jobId = jobId;
            return this;
        }

        public Builder jobModifyIndex(long jobModifyIndex) {
            this.jobModifyIndex = jobModifyIndex;
            return this;
        }

        public Builder nodeId(String nodeId) {
            this.nodeId = nodeId;
            return this;
        }

        public Builder nodeModifyIndex(long nodeModifyIndex) {
            this.nodeModifyIndex = nodeModifyIndex;
            return this;
        }

        public Builder deploymentId(String deploymentId) {
            this.deploymentId = deploymentId;
            return this;
        }

        public Builder status(String status) {
            this.status = status;
            return this;
        }

        public Builder statusDescription(String statusDescription) {
            this.statusDescription = statusDescription;
            return this;
        }

        public Builder waitDuration(Duration waitDuration) {
            this.waitDuration = waitDuration;
            return this;
        }

        public Builder waitUntil(Instant waitUntil) {
            this.waitUntil = waitUntil;
            return this;
        }

        public Builder nextEval(String nextEval) {
            this.nextEval = nextEval;
            return this;
        }

        public Builder previousEval(String previousEval) {
            this.previousEval = previousEval;
            return this;
        }

        public Builder blockedEval(String blockedEval) {
            this.blockedEval = blockedEval;
            return this;
        }

        public Builder relatedEvals(List<Map<String, Object>> relatedEvals) {
            this.relatedEvals = relatedEvals;
            return this;
        }

        public Builder failedTgAllocs(Map<String, AllocMetric> failedTgAllocs) {
            this.failedTgAllocs = failedTgAllocs;
            return this;
        }

        public Builder classEligibility(Map<String, Boolean> classEligibility) {
            this.classEligibility = classEligibility;
            return this;
        }

        public Builder quotaLimitReached(String quotaLimitReached) {
            this.quotaLimitReached = quotaLimitReached;
            return this;
        }

        public Builder escapedComputedClass(boolean escapedComputedClass) {
            this.escapedComputedClass = escapedComputedClass;
            return this;
        }

        public Builder annotatePlan(boolean annotatePlan) {
            this.annotatePlan = annotatePlan;
            return this;
        }

        public Builder queuedAllocations(Map<String, Integer> queuedAllocations) {
            this.queuedAllocations = queuedAllocations;
            return this;
        }

        public Builder leaderAcl(String leaderAcl) {
            this.leaderAcl = leaderAcl;
            return this;
        }

        public Builder snapshotIndex(long snapshotIndex) {
            this.snapshotIndex = snapshotIndex;
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

        public Builder createTime(long createTime) {
            this.createTime = createTime;
            return this;
        }

        public Builder modifyTime(long modifyTime) {
            this.modifyTime = modifyTime;
            return this;
        }

        public Evaluation build() {
            return new Evaluation(
                id, namespace, priority, type, triggeredBy, jobId, jobModifyIndex, nodeId, nodeModifyIndex,
                deploymentId, status, statusDescription, waitDuration, waitUntil, nextEval, previousEval, blockedEval,
                relatedEvals, failedTgAllocs, classEligibility, quotaLimitReached, escapedComputedClass, annotatePlan,
                queuedAllocations, leaderAcl, snapshotIndex, createIndex, modifyIndex, createTime, modifyTime);
        }
    }
}
