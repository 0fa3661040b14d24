package io.caravan.scheduler;

import io.caravan.api.model.Evaluation;

/**
 * The scheduler's way out: plans go to the leader's plan applier, evaluation changes through Raft. Calls block
 * until the change is committed (a worker thread runs one scheduler at a time).
 */
public interface Planner {

    /** Submits a plan; the result says what was committed and whether state must be refreshed. */
    PlanResult submitPlan(Plan plan) throws SchedulerException;

    /** A state at least as new as {@code minIndex}, after a partially rejected plan. */
    SchedulerState refreshState(long minIndex) throws SchedulerException;

    /** Records the evaluation's outcome (status, description, FailedTGAllocs, QueuedAllocations, BlockedEval …). */
    void updateEval(Evaluation eval) throws SchedulerException;

    /** Creates a follow-up evaluation: a blocked eval, or a delayed one for rescheduling ({@code WaitUntil}). */
    void createEval(Evaluation eval) throws SchedulerException;
}
