package io.caravan.server.internal;

import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;

/**
 * What the Raft log carries: every change to cluster state is one of these, built (validated, defaulted, IDs and
 * times chosen) by an endpoint and applied unchanged by every replica. Adding one means adding a record here and
 * a case in {@link Fsm}; {@link CommandCodec} checks at start-up that every command has a wire name.
 */
sealed interface Command permits Command.JobRegister, Command.JobDeregister {

    /**
     * Register or update a job, with the evaluation that schedules it. With {@code enforceIndex}, only if the
     * job's current JobModifyIndex is {@code jobModifyIndex} (0: the job must not exist yet) — Nomad's
     * check-and-set, decided at apply time so two racing writers cannot both win.
     */
    record JobRegister(Job job, Evaluation eval, boolean enforceIndex, long jobModifyIndex) implements Command {}

    /** Stop a job ({@code purge}: remove it and its versions), with the evaluation that stops its allocations. */
    record JobDeregister(String namespace, String jobId, boolean purge, Evaluation eval) implements Command {}

    /** What applying a command returned: Nomad's write response fields, or a rejection with its HTTP code. */
    record Result(long index, long jobModifyIndex, long evalCreateIndex, int errorCode, String error) {
        static Result ok(long index, long jobModifyIndex, long evalCreateIndex) {
            return new Result(index, jobModifyIndex, evalCreateIndex, 0, null);
        }

        static Result rejected(long index, int code, String error) {
            return new Result(index, 0, 0, code, error);
        }
    }
}
