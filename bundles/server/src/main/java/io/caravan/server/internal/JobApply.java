package io.caravan.server.internal;

import java.util.Objects;

import io.caravan.api.model.Job;
import io.caravan.state.StateTxn;

/** Applies job registrations and deregistrations. */
final class JobApply {
    private JobApply() {
    }

    static Command.Result register(Fsm.Txn txn, Command.JobRegister cmd) {
        StateTxn state = txn.state();
        long index = txn.index();
        Job job = cmd.job();
        String key = NomadTables.key(job.namespace(), job.id());
        if (Namespaces.get(state.read(), job.namespace()).isEmpty()) {
            // Deleted since the endpoint checked it: a job must not land in a namespace that does not exist.
            return Command.Result.rejected(index, 400, Namespaces.missing(job.namespace()));
        }
        java.util.Optional<String> noPool = NodePools.missing(state.read(), job);
        if (noPool.isPresent()) {
            // Likewise for its node pool (Nomad checks both when the job is written).
            return Command.Result.rejected(index, 400, noPool.get());
        }
        Job existing = state.get(NomadTables.JOBS, key).orElse(null);
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
        state.put(NomadTables.JOBS, stored);
        state.put(NomadTables.JOB_VERSIONS, stored);
        if (cmd.eval() != null) {
            txn.putEval(cmd.eval().withJobModifyIndex(jobModifyIndex).withIndexes(index, index));
        }
        PeriodicJobs.recordLaunch(state, stored);
        txn.jobWritten(job.namespace(), job.id());
        return Command.Result.ok(index, jobModifyIndex, cmd.eval() == null ? 0 : index);
    }

    static Command.Result deregister(Fsm.Txn txn, Command.JobDeregister cmd) {
        StateTxn state = txn.state();
        long index = txn.index();
        String key = NomadTables.key(cmd.namespace(), cmd.jobId());
        Job existing = state.get(NomadTables.JOBS, key).orElse(null);
        if (existing == null) {
            return Command.Result.rejected(index, 404, "job not found");
        }
        if (cmd.purge()) {
            purge(txn, existing);
        } else {
            state.put(NomadTables.JOBS, existing.withStop(true).withIndexes(existing.createIndex(), index, index));
        }
        if (cmd.eval() != null) {
            txn.putEval(cmd.eval().withJobModifyIndex(index).withIndexes(index, index));
        }
        txn.jobWritten(cmd.namespace(), cmd.jobId());
        return Command.Result.ok(index, index, cmd.eval() == null ? 0 : index);
    }

    /**
     * Removes the job and what only it uses (versions, summary, scaling events, deployments, periodic launches);
     * its evaluations and allocations stay until garbage collection, as in Nomad.
     */
    static void purge(Fsm.Txn txn, Job existing) {
        StateTxn state = txn.state();
        String key = NomadTables.key(existing.namespace(), existing.id());
        state.delete(NomadTables.JOBS, key);
        state.delete(NomadTables.JOB_SUMMARIES, key);
        state.delete(NomadTables.SCALING_EVENTS, key);
        state.read().prefix(NomadTables.JOB_VERSIONS, key + "\0").toList()
                .forEach(v -> state.delete(NomadTables.JOB_VERSIONS, NomadTables.JOB_VERSIONS.idOf(v)));
        DeploymentApply.deleteForJob(txn, key);
        PeriodicJobs.forget(state, existing.namespace(), existing.id());
        if (existing.parentId() != null && !existing.parentId().isEmpty()) {
            PeriodicJobs.countChildren(state, existing.namespace(), existing.parentId());
        }
    }

    /** Whether two versions of a job differ only in what the server sets. */
    static boolean sameSpec(Job a, Job b) {
        return Objects.equals(normalized(a), normalized(b));
    }

    private static Job normalized(Job job) {
        return job.withVersion(0).withStop(false).withStatus("", "").withIndexes(0, 0, 0).withSubmitTime(0)
                .withStable(false);
    }
}
