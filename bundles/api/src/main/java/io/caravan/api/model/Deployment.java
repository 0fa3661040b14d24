package io.caravan.api.model;

import java.util.Map;

/** A deployment of one job version. {@code CreateTime}/{@code ModifyTime} are Unix nanoseconds. */
public record Deployment(
        String id,
        String namespace,
        String jobId,
        long jobVersion,
        long jobModifyIndex,
        long jobSpecModifyIndex,
        long jobCreateIndex,
        boolean isMultiregion,
        Map<String, DeploymentState> taskGroups,
        String status,
        String statusDescription,
        int evalPriority,
        long createIndex,
        long modifyIndex,
        long createTime,
        long modifyTime) {

    public static final String STATUS_RUNNING = "running";
    public static final String STATUS_PAUSED = "paused";
    public static final String STATUS_FAILED = "failed";
    public static final String STATUS_SUCCESSFUL = "successful";
    /** Two "l"s, unlike {@link Evaluation#STATUS_CANCELED}. */
    public static final String STATUS_CANCELLED = "cancelled";
    public static final String STATUS_INITIALIZING = "initializing";
    public static final String STATUS_PENDING = "pending";
    public static final String STATUS_BLOCKED = "blocked";
    public static final String STATUS_UNBLOCKING = "unblocking";

    public Deployment {
        taskGroups = Copy.map(taskGroups);
    }

    public boolean active() {
        return STATUS_RUNNING.equals(status) || STATUS_PAUSED.equals(status) || STATUS_INITIALIZING.equals(status)
                || STATUS_PENDING.equals(status) || STATUS_BLOCKED.equals(status) || STATUS_UNBLOCKING.equals(status);
    }
}
