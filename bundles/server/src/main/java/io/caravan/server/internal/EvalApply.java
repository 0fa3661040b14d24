package io.caravan.server.internal;

import io.caravan.api.model.Evaluation;
import io.caravan.state.StateTxn;

/** Applies evaluation writes and the scheduler configuration. */
final class EvalApply {
    private EvalApply() {
    }

    /** New evaluations get their create index; updated ones keep it. */
    static Command.Result upsert(Fsm.Txn txn, Command.EvalUpsert cmd) {
        StateTxn state = txn.state();
        long index = txn.index();
        for (Evaluation eval : cmd.evals()) {
            long createIndex = state.get(NomadTables.EVALS, eval.id()).map(Evaluation::createIndex).orElse(index);
            txn.putEval(eval.withIndexes(createIndex, index));
        }
        return Command.Result.ok(index);
    }

    /**
     * Nomad's rule when an evaluation completes having placed everything (a stop of a job blocked on a constraint
     * among them): the job's blocked evaluations are no longer needed and are cancelled in the same write, or the job
     * would stay {@code pending} forever ({@link JobStatus}).
     */
    static void cancelBlocked(Fsm.Txn txn, Evaluation done) {
        if (!Evaluation.STATUS_COMPLETE.equals(done.status()) || !done.failedTgAllocs().isEmpty()) {
            return;
        }
        StateTxn state = txn.state();
        state.read().byIndex(NomadTables.EVALS, "job", NomadTables.key(done.namespace(), done.jobId()))
                .filter(e -> Evaluation.STATUS_BLOCKED.equals(e.status()) && !e.id().equals(done.id())).toList()
                .forEach(blocked -> txn.putEval(blocked.toBuilder().status(Evaluation.STATUS_CANCELED)
                        .statusDescription("evaluation \"" + done.id() + "\" successful")
                        .modifyTime(done.modifyTime()).build().withIndexes(blocked.createIndex(), state.index())));
    }

    static Command.Result schedulerConfig(Fsm.Txn txn, Command.SchedulerConfigUpdate cmd) {
        StateTxn state = txn.state();
        long index = txn.index();
        SchedulerConfig current = state.get(NomadTables.SCHEDULER_CONFIG, SchedulerConfig.KEY).orElse(null);
        if (cmd.cas() && (current == null ? 0 : current.modifyIndex()) != cmd.expectedIndex()) {
            return Command.Result.rejected(index, 409, "scheduler configuration changed since index "
                    + cmd.expectedIndex());
        }
        long createIndex = current == null ? index : current.createIndex();
        state.put(NomadTables.SCHEDULER_CONFIG, cmd.config().withIndexes(createIndex, index));
        return Command.Result.ok(index);
    }
}
