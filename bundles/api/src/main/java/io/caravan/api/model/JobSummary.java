package io.caravan.api.model;

import java.util.Map;

/** {@code GET /v1/job/:id/summary}; {@code Children} counts the children of periodic and parameterized jobs. */
public record JobSummary(
        String jobId,
        String namespace,
        Map<String, TaskGroupSummary> summary,
        Children children,
        long createIndex,
        long modifyIndex) {

    public JobSummary {
        summary = Copy.map(summary);
        children = children == null ? new Children(0, 0, 0) : children;
    }

    public record Children(long pending, long running, long dead) {
    }
}
