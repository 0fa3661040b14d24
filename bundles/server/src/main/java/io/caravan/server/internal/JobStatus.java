package io.caravan.server.internal;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.Deployment;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.api.model.JobSummary;
import io.caravan.api.model.TaskGroup;
import io.caravan.api.model.TaskGroupSummary;
import io.caravan.state.StateSnapshot;
import io.caravan.state.StateTxn;

/**
 * A job's derived state, updated once per command that touched the job: the summary's counts by client status,
 * kept incrementally from each allocation's before and after (a recount only when the job itself was written, since
 * its groups may have changed); Queued from the last finished evaluation; and the job's status by Nomad's rule —
 * running while an allocation is not terminal or a deployment is active, pending while an evaluation is not, dead once everything is terminal
 * or the job is stopped; periodic and parameterized jobs run until stopped.
 */
final class JobStatus {
    private static final int QUEUED = 0;
    private static final int COMPLETE = 1;
    private static final int FAILED = 2;
    private static final int RUNNING = 3;
    private static final int STARTING = 4;
    private static final int LOST = 5;
    private static final int UNKNOWN = 6;

    /** What one command did to one job. */
    static final class Change {
        boolean recount;
        final Map<String, int[]> deltas = new HashMap<>();   // group → count changes by status slot
        Map<String, Integer> queued;

        void alloc(Allocation before, Allocation after) {
            if (before != null) {
                add(before, -1);
            }
            if (after != null) {
                add(after, +1);
            }
        }

        private void add(Allocation a, int sign) {
            int slot = slot(a.clientStatus());
            if (slot >= 0) {
                deltas.computeIfAbsent(a.taskGroup(), g -> new int[7])[slot] += sign;
            }
        }

        void eval(Evaluation e) {
            if (Evaluation.STATUS_COMPLETE.equals(e.status()) || Evaluation.STATUS_FAILED.equals(e.status())) {
                queued = e.queuedAllocations();
            }
        }
    }

    private JobStatus() {
    }

    /** Every job's summary recounted (the operator's {@code system reconcile summaries}). */
    static Command.Result reconcileAll(Fsm.Txn txn, Command.JobSummariesReconcile cmd) {
        txn.state().read().all(NomadTables.JOBS).forEach(job -> txn.jobWritten(job.namespace(), job.id()));
        return Command.Result.ok(txn.index());
    }

    static void apply(StateTxn txn, String jobKey, Change change) {
        Job job = txn.get(NomadTables.JOBS, jobKey).orElse(null);
        if (job == null) {
            return; // purged
        }
        StateSnapshot view = txn.read();
        JobSummary before = txn.get(NomadTables.JOB_SUMMARIES, jobKey).orElse(null);
        JobSummary summary = change.recount || before == null
                ? recount(job, before, view, jobKey, change.queued, txn.index())
                : adjust(before, change, txn.index());
        if (!summary.equals(before)) {
            txn.put(NomadTables.JOB_SUMMARIES, summary);
        }
        String status = status(job, view, jobKey);
        boolean changed = !status.equals(job.status());
        if (changed) {
            txn.put(NomadTables.JOBS, job.withStatus(status, "")
                    .withIndexes(job.createIndex(), txn.index(), job.jobModifyIndex()));
        }
        if ((changed || change.recount) && job.parentId() != null && !job.parentId().isEmpty()) {
            PeriodicJobs.countChildren(txn, job.namespace(), job.parentId());
        }
    }

    /** Streams lazily: the common answers (a live allocation, a pending evaluation) stop at the first row. */
    static String status(Job job, StateSnapshot view, String jobKey) {
        if (PeriodicJobs.isParent(job)) {
            return Boolean.TRUE.equals(job.stop()) ? Job.STATUS_DEAD : Job.STATUS_RUNNING;
        }
        boolean anyAlloc = false;
        for (Allocation a : (Iterable<Allocation>) view.byIndex(NomadTables.ALLOCS, "job", jobKey)::iterator) {
            if (!a.terminal()) {
                return Job.STATUS_RUNNING;
            }
            anyAlloc = true;
        }
        // Nomad's rule: an active deployment (say, waiting on replacements for lost allocations) keeps it running.
        if (view.byIndex(NomadTables.DEPLOYMENTS, "job", jobKey).anyMatch(Deployment::active)) {
            return Job.STATUS_RUNNING;
        }
        boolean anyEval = false;
        for (Evaluation e : (Iterable<Evaluation>) view.byIndex(NomadTables.EVALS, "job", jobKey)::iterator) {
            if (!e.terminal()) {
                return Job.STATUS_PENDING;
            }
            anyEval = true;
        }
        return Boolean.TRUE.equals(job.stop()) || anyAlloc || anyEval ? Job.STATUS_DEAD : Job.STATUS_PENDING;
    }

    private static JobSummary recount(Job job, JobSummary before, StateSnapshot view, String jobKey,
                                      Map<String, Integer> queued, long index) {
        Map<String, int[]> counts = new LinkedHashMap<>();
        for (TaskGroup group : job.taskGroups()) {
            int[] c = new int[7];
            TaskGroupSummary was = before == null ? null : before.summary().get(group.name());
            c[QUEUED] = was == null ? 0 : was.queued();
            counts.put(group.name(), c);
        }
        view.byIndex(NomadTables.ALLOCS, "job", jobKey).forEach(a -> {
            int slot = slot(a.clientStatus());
            if (slot >= 0) {
                counts.computeIfAbsent(a.taskGroup(), g -> new int[7])[slot]++;
            }
        });
        setQueued(counts, queued);
        return summary(job.id(), job.namespace(), before, counts, index);
    }

    private static JobSummary adjust(JobSummary before, Change change, long index) {
        Map<String, int[]> counts = new LinkedHashMap<>();
        before.summary().forEach((group, s) -> counts.put(group, new int[] {s.queued(), s.complete(), s.failed(),
                s.running(), s.starting(), s.lost(), s.unknown()}));
        change.deltas.forEach((group, d) -> {
            int[] c = counts.computeIfAbsent(group, g -> new int[7]);
            for (int i = 0; i < 7; i++) {
                c[i] = Math.max(0, c[i] + d[i]);
            }
        });
        setQueued(counts, change.queued);
        return summary(before.jobId(), before.namespace(), before, counts, index);
    }

    private static void setQueued(Map<String, int[]> counts, Map<String, Integer> queued) {
        if (queued != null) {
            queued.forEach((group, n) -> {
                int[] c = counts.get(group);
                if (c != null) {
                    c[QUEUED] = n;
                }
            });
        }
    }

    private static JobSummary summary(String jobId, String namespace, JobSummary before, Map<String, int[]> counts,
                                      long index) {
        Map<String, TaskGroupSummary> groups = new LinkedHashMap<>();
        counts.forEach((group, c) -> groups.put(group, new TaskGroupSummary(c[QUEUED], c[COMPLETE], c[FAILED],
                c[RUNNING], c[STARTING], c[LOST], c[UNKNOWN])));
        if (before != null && before.summary().equals(groups)) {
            return before;
        }
        return new JobSummary(jobId, namespace, groups, before == null ? null : before.children(),
                before == null ? index : before.createIndex(), index);
    }

    private static int slot(String clientStatus) {
        if (clientStatus == null) {
            return -1;
        }
        return switch (clientStatus) {
            case Allocation.CLIENT_COMPLETE -> COMPLETE;
            case Allocation.CLIENT_FAILED -> FAILED;
            case Allocation.CLIENT_RUNNING -> RUNNING;
            case Allocation.CLIENT_PENDING -> STARTING;
            case Allocation.CLIENT_LOST -> LOST;
            case Allocation.CLIENT_UNKNOWN -> UNKNOWN;
            default -> -1;
        };
    }
}
