package io.caravan.server.internal;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import io.caravan.api.model.Job;
import io.caravan.api.model.JobSummary;
import io.caravan.api.model.TaskGroup;
import io.caravan.api.model.TaskGroupSummary;
import io.caravan.state.StateStore;
import io.caravan.state.StateTxn;

/**
 * Applies commands to the state store, one at a time, in log order. Deterministic: the index comes from the log
 * and every time or ID was chosen when the command was built, so every replica reaches the same state. Expected
 * rejections are results; an exception is a bug and stops the server (the consensus bundle's rule).
 */
final class Fsm {
    private final StateStore store;

    Fsm(StateStore store) {
        this.store = store;
    }

    Command.Result apply(long index, Command command) {
        try (StateTxn txn = store.begin(index)) {
            Command.Result result;
            if (command instanceof Command.JobRegister register) {
                result = register(txn, register);
            } else {
                result = deregister(txn, (Command.JobDeregister) command);
            }
            if (result.errorCode() == 0) {
                txn.commit();
            }
            return result;
        }
    }

    private static Command.Result register(StateTxn txn, Command.JobRegister cmd) {
        long index = txn.index();
        Job job = cmd.job();
        String key = NomadTables.key(job.namespace(), job.id());
        Job existing = txn.get(NomadTables.JOBS, key).orElse(null);
        if (cmd.enforceIndex()) {
            long current = existing == null ? 0 : existing.jobModifyIndex();
            if (current != cmd.jobModifyIndex()) {
                return Command.Result.rejected(index, 409, "Enforcing job modify index " + cmd.jobModifyIndex()
                        + ": " + (existing == null ? "job does not exist"
                        : "job exists with conflicting job modify index: " + current));
            }
        }
        long version = 0;
        long createIndex = index;
        long jobModifyIndex = index;
        if (existing != null) {
            createIndex = existing.createIndex();
            // Nomad bumps the version only when the specification changed.
            if (sameSpec(existing, job)) {
                version = existing.version();
                jobModifyIndex = existing.jobModifyIndex();
            } else {
                version = existing.version() + 1;
            }
        }
        Job stored = job.withVersion(version).withStop(false).withStatus(Job.STATUS_PENDING, "")
                .withIndexes(createIndex, index, jobModifyIndex);
        txn.put(NomadTables.JOBS, stored);
        txn.put(NomadTables.JOB_VERSIONS, stored);
        JobSummary summary = txn.get(NomadTables.JOB_SUMMARIES, key).orElse(null);
        txn.put(NomadTables.JOB_SUMMARIES, summaryFor(stored, summary, index));
        txn.put(NomadTables.EVALS, cmd.eval().withJobModifyIndex(jobModifyIndex).withIndexes(index, index));
        return Command.Result.ok(index, jobModifyIndex, index);
    }

    private static Command.Result deregister(StateTxn txn, Command.JobDeregister cmd) {
        long index = txn.index();
        String key = NomadTables.key(cmd.namespace(), cmd.jobId());
        Job existing = txn.get(NomadTables.JOBS, key).orElse(null);
        if (existing == null) {
            return Command.Result.rejected(index, 404, "job not found");
        }
        if (cmd.purge()) {
            txn.delete(NomadTables.JOBS, key);
            txn.delete(NomadTables.JOB_SUMMARIES, key);
            txn.read().prefix(NomadTables.JOB_VERSIONS, key + "\0").toList()
                    .forEach(v -> txn.delete(NomadTables.JOB_VERSIONS, NomadTables.JOB_VERSIONS.idOf(v)));
        } else {
            txn.put(NomadTables.JOBS, existing.withStop(true).withIndexes(existing.createIndex(), index, index));
        }
        txn.put(NomadTables.EVALS, cmd.eval().withJobModifyIndex(index).withIndexes(index, index));
        return Command.Result.ok(index, index, index);
    }

    /** Whether two versions of a job differ only in what the server sets. */
    static boolean sameSpec(Job a, Job b) {
        Job normA = a.withVersion(0).withStop(false).withStatus("", "").withIndexes(0, 0, 0).withSubmitTime(0)
                .withStable(false);
        Job normB = b.withVersion(0).withStop(false).withStatus("", "").withIndexes(0, 0, 0).withSubmitTime(0)
                .withStable(false);
        return Objects.equals(normA, normB);
    }

    /** A summary counts allocations by state per group; a new group starts at zero, a gone one disappears. */
    private static JobSummary summaryFor(Job job, JobSummary existing, long index) {
        Map<String, TaskGroupSummary> groups = new LinkedHashMap<>();
        for (TaskGroup group : job.taskGroups()) {
            TaskGroupSummary before = existing == null ? null : existing.summary().get(group.name());
            groups.put(group.name(), before != null ? before : new TaskGroupSummary(0, 0, 0, 0, 0, 0, 0));
        }
        return new JobSummary(job.id(), job.namespace(), groups, new JobSummary.Children(0, 0, 0),
                existing == null ? index : existing.createIndex(), index);
    }
}
