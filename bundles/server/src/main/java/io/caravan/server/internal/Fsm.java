package io.caravan.server.internal;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;

import io.caravan.state.StateStore;
import io.caravan.state.StateTxn;

/**
 * Applies commands to the state store, one at a time, in log order. Deterministic: the index comes from the log
 * and every time or ID was chosen when the command was built, so every replica reaches the same state. Expected
 * rejections are results; an exception is a bug and stops the server (the consensus bundle's rule).
 *
 * <p>Each command type has one applier, kept with its resource ({@link JobApply}, {@link NodeApply},
 * {@link AllocApply}, {@link EvalApply}); the table is checked against the sealed hierarchy at start-up. After a
 * command, the summaries and statuses of the jobs it touched are recomputed once ({@link JobStatus}).
 */
final class Fsm {
    /** One command's application: writes through the txn, reports the jobs it touched. */
    interface Applier<C extends Command> {
        Command.Result apply(Txn txn, C command);
    }

    /** The write transaction with the set of jobs whose allocations, evaluations or spec changed. */
    record Txn(StateTxn state, Set<String> touchedJobs) {
        long index() {
            return state.index();
        }

        void touch(String namespace, String jobId) {
            touchedJobs.add(NomadTables.key(namespace, jobId));
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

    Command.Result apply(long index, Command command) {
        try (StateTxn state = store.begin(index)) {
            Txn txn = new Txn(state, new LinkedHashSet<>());
            Command.Result result = appliers.get(command.getClass()).apply(txn, command);
            if (result.errorCode() == 0) {
                for (String job : txn.touchedJobs()) {
                    JobStatus.refresh(state, job);
                }
                state.commit();
            }
            return result;
        }
    }
}
