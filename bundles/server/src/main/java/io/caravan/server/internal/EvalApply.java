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
