package io.caravan.server.internal;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.BiFunction;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.Evaluation;
import io.caravan.state.StateSnapshot;
import io.caravan.state.StateStore;
import io.caravan.state.StateTxn;

/**
 * Applies commands to the state store, one at a time, in log order. Deterministic: the index comes from the log
 * and every time or ID was chosen when the command was built, so every replica reaches the same state. Expected
 * rejections are results; an exception is a bug and stops the server (the consensus bundle's rule).
 *
 * <p>Each command type has one applier, kept with its resource ({@link JobApply}, {@link NodeApply},
 * {@link AllocApply}, {@link EvalApply}); the table is checked against the sealed hierarchy at start-up. After a
 * command, the summaries and statuses of the jobs it touched are updated once ({@link JobStatus}).
 */
final class Fsm {
    /** One command's application: writes through the txn, reports the jobs it touched. */
    interface Applier<C extends Command> {
        Command.Result apply(Txn txn, C command);
    }

    /**
     * The write transaction, and what it did to each job. Allocations and evaluations are written through it, so
     * the job summaries follow incrementally ({@link JobStatus}).
     */
    record Txn(StateTxn state, Map<String, JobStatus.Change> jobs) {
        long index() {
            return state.index();
        }

        private JobStatus.Change job(String namespace, String jobId) {
            return jobs.computeIfAbsent(NomadTables.key(namespace, jobId), k -> new JobStatus.Change());
        }

        /** The job itself was written: its groups may have changed, so its summary is recounted. */
        void jobWritten(String namespace, String jobId) {
            job(namespace, jobId).recount = true;
        }

        void putAlloc(Allocation before, Allocation after) {
            state.put(NomadTables.ALLOCS, after);
            job(after.namespace(), after.jobId()).alloc(before, after);
            ServiceRegistrations.allocWritten(state, after);
        }

        /** Deletes an evaluation; its job's status is worked out again (it may have been what kept it pending). */
        void deleteEval(Evaluation eval) {
            if (state.delete(NomadTables.EVALS, eval.id())) {
                job(eval.namespace(), eval.jobId());
            }
        }

        /**
         * Deletes a terminal allocation. Its job's summary keeps counting it, as Nomad's does: the summary is the
         * job's history (complete, failed, lost), not a count of the rows still stored.
         */
        void deleteAlloc(Allocation alloc) {
            state.delete(NomadTables.ALLOCS, alloc.id());
        }

        void putEval(Evaluation eval) {
            state.put(NomadTables.EVALS, eval);
            job(eval.namespace(), eval.jobId()).eval(eval);
            EvalApply.cancelBlocked(this, eval);
        }
    }

    private final StateStore store;
    private final Map<Class<?>, Applier<Command>> appliers = new HashMap<>();

    Fsm(StateStore store) {
        this.store = store;
        on(Command.JobRegister.class, JobApply::register);
        on(Command.JobDeregister.class, JobApply::deregister);
        on(Command.NodeRegister.class, NodeApply::register);
        on(Command.NodeStatusUpdate.class, NodeApply::updateStatus);
        on(Command.NodeEligibilityUpdate.class, NodeApply::updateEligibility);
        on(Command.NodeDrainUpdate.class, NodeApply::updateDrain);
        on(Command.NodeDeregister.class, NodeApply::deregister);
        on(Command.AllocClientUpdate.class, AllocApply::clientUpdate);
        on(Command.AllocTransitionUpdate.class, AllocApply::transitionUpdate);
        on(Command.PlanApply.class, AllocApply::planApply);
        on(Command.EvalUpsert.class, EvalApply::upsert);
        on(Command.SchedulerConfigUpdate.class, EvalApply::schedulerConfig);
        on(Command.AclPolicyUpsert.class, AclApply::upsertPolicies);
        on(Command.AclPolicyDelete.class, AclApply::deletePolicies);
        on(Command.AclTokenUpsert.class, AclApply::upsertTokens);
        on(Command.AclTokenDelete.class, AclApply::deleteTokens);
        on(Command.AclBootstrap.class, AclApply::bootstrap);
        on(Command.AclRoleUpsert.class, AclApply::upsertRoles);
        on(Command.AclRoleDelete.class, AclApply::deleteRoles);
        on(Command.AclAuthMethodUpsert.class, AclApply::upsertAuthMethods);
        on(Command.AclAuthMethodDelete.class, AclApply::deleteAuthMethods);
        on(Command.AclBindingRuleUpsert.class, AclApply::upsertBindingRules);
        on(Command.AclBindingRuleDelete.class, AclApply::deleteBindingRules);
        on(Command.DeploymentStatusChange.class, DeploymentApply::statusChange);
        on(Command.DeploymentPromotion.class, DeploymentApply::promotion);
        on(Command.DeploymentAllocHealth.class, DeploymentApply::allocHealth);
        on(Command.JobStability.class, DeploymentApply::jobStability);
        on(Command.JobVersionTag.class, DeploymentApply::jobVersionTag);
        on(Command.VariableSet.class, VariableApply::set);
        on(Command.VariableDelete.class, VariableApply::delete);
        on(Command.VariableLockUpdate.class, VariableApply::lock);
        on(Command.NamespaceUpsert.class, Namespaces::upsert);
        on(Command.NamespaceDelete.class, Namespaces::delete);
        on(Command.ScalingEventRecord.class, ScalingEvents::record);
        on(Command.KeystoreRegister.class, KeyringApply::registerKeystore);
        on(Command.RootKeyUpsert.class, KeyringApply::upsertRootKey);
        on(Command.RootKeyWrap.class, KeyringApply::wrapRootKey);
        on(Command.RootKeyDelete.class, KeyringApply::deleteRootKey);
        on(Command.VariableRekey.class, VariableApply::rekey);
        on(Command.RootKeyRekeyed.class, KeyringApply::rekeyed);
        on(Command.ServiceRegistrationUpsert.class, ServiceRegistrations::upsert);
        on(Command.ServiceRegistrationDelete.class, ServiceRegistrations::delete);
        on(Command.EvalDelete.class, EvalDeletes::apply);
        on(Command.GcDelete.class, CoreGc::apply);
        on(Command.JobSummariesReconcile.class, JobStatus::reconcileAll);
        on(Command.SnapshotRestoreChunk.class, SnapshotRestore::stage);
        on(Command.SnapshotRestoreCommit.class, (txn, c) -> {
            throw new IllegalStateException("a snapshot restore is applied outside a transaction");
        });
        on(Command.AutopilotConfigUpdate.class, Autopilot::setConfig);
        on(Command.NodePoolUpsert.class, NodePools::upsert);
        on(Command.NodePoolDelete.class, NodePools::delete);
        on(Command.OneTimeTokenUpsert.class, OneTimeTokens::upsert);
        on(Command.OneTimeTokenExchange.class, OneTimeTokens::exchange);
        on(Command.OneTimeTokenExpire.class, OneTimeTokens::expire);
        for (Class<?> type : Command.class.getPermittedSubclasses()) {
            if (!appliers.containsKey(type)) {
                throw new IllegalStateException("no applier for command " + type.getSimpleName());
            }
        }
    }

    @SuppressWarnings("unchecked")
    private <C extends Command> void on(Class<C> type, BiFunction<Txn, C, Command.Result> applier) {
        appliers.put(type, (txn, command) -> applier.apply(txn, (C) command));
    }

    /**
     * What applying an entry gave: the command's result, or, for a {@code retry} of a write the log applied before,
     * that write's first result (nothing was applied this time).
     */
    record Outcome(Command.Result result, boolean retry) {}

    /** Applies a command that no request ID names (entries older than request IDs): never de-duplicated. */
    Command.Result apply(long index, Command command) {
        return apply(index, 0, null, command).result();
    }

    /**
     * Applies the command of the write {@code requestId} once: a second entry of the same write (a retry) changes
     * nothing and answers the first result ({@link AppliedRequests}).
     *
     * @param timestampMillis the leader's stamp of the entry, which bounds how long request IDs are kept
     * @param requestId null for an entry without one
     */
    Outcome apply(long index, long timestampMillis, UUID requestId, Command command) {
        // The apply thread is the store's only writer: its snapshot is the state of the previous entry.
        StateSnapshot before = store.snapshot();
        if (command instanceof Command.SnapshotRestoreCommit restore) {
            return new Outcome(SnapshotRestore.commit(store, index, restore), false);   // replaces the whole state
        }
        if (requestId != null) {
            Optional<Command.Result> first = AppliedRequests.result(before, requestId);
            if (first.isPresent()) {
                return new Outcome(first.get(), true);
            }
        }
        Command.Result result;
        try (StateTxn state = store.begin(index)) {
            Txn txn = new Txn(state, new LinkedHashMap<>());
            result = appliers.get(command.getClass()).apply(txn, command);
            if (result.errorCode() == 0) {
                txn.jobs().forEach((job, change) -> JobStatus.apply(state, job, change));
                if (requestId != null) {
                    AppliedRequests.record(state, before, requestId, timestampMillis, result);
                }
                state.commit();
                return new Outcome(result, false);
            }
        }
        if (requestId != null) {
            // A rejection (a conflict, a missing job) discards the command's writes, but a retry must hear it too.
            try (StateTxn state = store.begin(index)) {
                AppliedRequests.record(state, before, requestId, timestampMillis, result);
                state.commit();
            }
        }
        return new Outcome(result, false);
    }
}
