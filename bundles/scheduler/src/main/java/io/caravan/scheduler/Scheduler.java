package io.caravan.scheduler;

import io.caravan.api.model.Evaluation;

/** Processes one evaluation: reconcile, place, submit plans, record the outcome through the {@link Planner}. */
public interface Scheduler {
    void process(Evaluation eval) throws SchedulerException;
}
