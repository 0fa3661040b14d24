package io.caravan.server.internal;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.api.model.JobSummary;
import io.caravan.api.model.TaskGroup;
import io.caravan.api.model.TaskGroupSummary;
import io.caravan.state.StateSnapshot;
import io.caravan.state.StateTxn;

/**
 * A job's derived state, recomputed after every command that touched it: the summary's counts by client status
 * (Queued comes from the job's last finished evaluation) and the job's status, by Nomad's rule — running while an
 * allocation is not terminal, pending while an evaluation is not, dead once everything is terminal or the job is
 * stopped; periodic and parameterized jobs run until stopped.
 */
final class JobStatus {
    private JobStatus() {
    }

    static void refresh(StateTxn txn, String jobKey) {
        Job job = txn.get(NomadTables.JOBS, jobKey).orElse(null);
        if (job == null) {
            return; // purged
        }
        StateSnapshot view = txn.read();
        List<Allocation> allocs = view.byIndex(NomadTables.ALLOCS, "job", jobKey).toList();
        List<Evaluation> evals = view.byIndex(NomadTables.EVALS, "job", jobKey).toList();
        JobSummary before = txn.get(NomadTables.JOB_SUMMARIES, jobKey).orElse(null);
        JobSummary summary = summary(job, before, allocs, evals, txn.index());
        if (!summary.equals(before)) {
            txn.put(NomadTables.JOB_SUMMARIES, summary);
        }
        String status = status(job, allocs, evals);
        if (!status.equals(job.status())) {
            txn.put(NomadTables.JOBS, job.withStatus(status, "")
                    .withIndexes(job.createIndex(), txn.index(), job.jobModifyIndex()));
        }
    }

    static String status(Job job, List<Allocation> allocs, List<Evaluation> evals) {
        if (job.periodic() != null || job.parameterizedJob() != null) {
            return Boolean.TRUE.equals(job.stop()) ? Job.STATUS_DEAD : Job.STATUS_RUNNING;
        }
        if (allocs.stream().anyMatch(a -> !a.terminal())) {
            return Job.STATUS_RUNNING;
        }
        if (evals.stream().anyMatch(e -> !e.terminal())) {
            return Job.STATUS_PENDING;
        }
        if (Boolean.TRUE.equals(job.stop()) || !allocs.isEmpty() || !evals.isEmpty()) {
            return Job.STATUS_DEAD;
        }
        return Job.STATUS_PENDING;
    }

    private static JobSummary summary(Job job, JobSummary before, List<Allocation> allocs, List<Evaluation> evals,
                                      long index) {
        Map<String, int[]> counts = new LinkedHashMap<>();
        for (TaskGroup group : job.taskGroups()) {
            counts.put(group.name(), new int[7]);
        }
        for (Allocation a : allocs) {
            int[] c = counts.computeIfAbsent(a.taskGroup(), g -> new int[7]);
            switch (a.clientStatus() == null ? "" : a.clientStatus()) {
                case Allocation.CLIENT_COMPLETE -> c[1]++;
                case Allocation.CLIENT_FAILED -> c[2]++;
                case Allocation.CLIENT_RUNNING -> c[3]++;
                case Allocation.CLIENT_PENDING -> c[4]++;
                case Allocation.CLIENT_LOST -> c[5]++;
                case Allocation.CLIENT_UNKNOWN -> c[6]++;
                default -> { }
            }
        }
        // Queued: what the job's latest finished evaluation could not place.
        evals.stream().filter(e -> Evaluation.STATUS_COMPLETE.equals(e.status())
                        || Evaluation.STATUS_FAILED.equals(e.status()))
                .max(java.util.Comparator.comparingLong(Evaluation::modifyIndex))
                .ifPresent(e -> e.queuedAllocations().forEach((group, queued) -> {
                    int[] c = counts.get(group);
                    if (c != null) {
                        c[0] = queued;
                    }
                }));
        Map<String, TaskGroupSummary> groups = new LinkedHashMap<>();
        counts.forEach((group, c) -> groups.put(group, new TaskGroupSummary(c[0], c[1], c[2], c[3], c[4], c[5], c[6])));
        long createIndex = before == null ? index : before.createIndex();
        JobSummary candidate = new JobSummary(job.id(), job.namespace(), groups,
                before == null ? null : before.children(), createIndex, before == null ? index : before.modifyIndex());
        if (before != null && candidate.equals(before)) {
            return before;
        }
        return new JobSummary(job.id(), job.namespace(), groups, candidate.children(), createIndex, index);
    }
}
