package io.caravan.api.model;

import java.util.List;
import java.util.Map;

/** An entry of {@code GET /v1/jobs}. {@code Periodic} and {@code ParameterizedJob} are booleans here. */
public record JobListStub(
        String id,
        String parentId,
        String name,
        String namespace,
        List<String> datacenters,
        String nodePool,
        Map<String, Object> multiregion,
        String type,
        int priority,
        boolean periodic,
        boolean parameterizedJob,
        boolean stop,
        String status,
        String statusDescription,
        JobSummary jobSummary,
        long createIndex,
        long modifyIndex,
        long jobModifyIndex,
        long submitTime,
        Map<String, String> meta) {

    public JobListStub {
        datacenters = Copy.list(datacenters);
        multiregion = Copy.rawOrNull(multiregion);
        meta = Copy.map(meta);
    }

    /** Nomad's {@code Job.Stub(summary)}: a dispatched child is not itself parameterized. */
    public static JobListStub of(Job job, JobSummary summary) {
        return new JobListStub(job.id(), job.parentId(), job.name(), job.namespace(), job.datacenters(),
                job.nodePool(), job.multiregion(), job.type(), value(job.priority()),
                job.periodic() != null,
                job.parameterizedJob() != null && !job.dispatched(), Boolean.TRUE.equals(job.stop()), job.status(),
                job.statusDescription(), summary, value(job.createIndex()), value(job.modifyIndex()),
                value(job.jobModifyIndex()), value(job.submitTime()), job.meta());
    }

    private static int value(Integer i) {
        return i == null ? 0 : i;
    }

    private static long value(Long l) {
        return l == null ? 0 : l;
    }
}
