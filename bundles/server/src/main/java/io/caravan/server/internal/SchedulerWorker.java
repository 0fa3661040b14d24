package io.caravan.server.internal;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;

import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.scheduler.Plan;
import io.caravan.scheduler.PlanResult;
import io.caravan.scheduler.Planner;
import io.caravan.scheduler.SchedulerException;
import io.caravan.scheduler.SchedulerState;
import io.caravan.scheduler.Schedulers;
import io.caravan.state.StateSnapshot;
import io.caravan.state.StateStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One scheduler worker (Nomad runs {@code num_schedulers} of them): takes an evaluation from the broker, runs the
 * scheduler for its type on a snapshot at least as new as the evaluation, and acks — or nacks on failure, so the
 * broker retries it. The worker is the scheduler's {@link Planner}: plans go to the plan applier, evaluation updates
 * through Raft.
 */
final class SchedulerWorker implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SchedulerWorker.class);
    private static final Duration POLL = Duration.ofMillis(500);
    private static final Duration SNAPSHOT_WAIT = Duration.ofSeconds(5);

    private final EvalBroker broker;
    private final Set<String> types;
    private final StateStore store;
    private final PlanApplier planApplier;
    private final RaftWrites writes;
    private final Clock clock;
    private final WorkerTimings timings;
    private final Thread thread;
    private final String id = java.util.UUID.randomUUID().toString();
    private final java.time.Instant started;
    /** Nomad's worker workload status: what the worker is doing right now. */
    private volatile String workload = "Starting";
    private volatile boolean closed;

    /** Nomad's {@code WorkerStats} row of {@code GET /v1/agent/schedulers}. */
    record Info(String id, List<String> enabledSchedulers, String started, String status, String workloadStatus) {}

    Info info() {
        return new Info(id, types.stream().sorted().toList(), started.toString(), closed ? "Stopped" : "Started",
                closed ? "Stopped" : workload);
    }

    SchedulerWorker(int number, EvalBroker broker, Set<String> types, StateStore store, PlanApplier planApplier,
                    RaftWrites writes, Clock clock, WorkerTimings timings) {
        this.timings = timings;
        this.broker = broker;
        this.types = types;
        this.store = store;
        this.planApplier = planApplier;
        this.writes = writes;
        this.clock = clock;
        this.started = clock.instant();
        this.thread = new Thread(this::run, "caravan-scheduler-" + number);
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        while (!closed) {
            Optional<EvalBroker.Lease> lease;
            workload = "WaitingToDequeue";
            try {
                lease = broker.dequeue(types, POLL); // nothing while the operator paused the broker
            } catch (InterruptedException e) {
                return;
            }
            workload = "Scheduling";
            lease.ifPresent(this::process);
        }
    }

    private void process(EvalBroker.Lease lease) {
        Evaluation eval = lease.eval();
        try {
            if (Job.TYPE_CORE.equals(eval.type())) {
                // Core (GC) evaluations are not scheduled; the GC issue gives them a scheduler.
                broker.ack(eval.id(), lease.token());
                return;
            }
            long started = System.nanoTime();
            SchedulerState state = stateAtLeast(eval.modifyIndex());
            if (store.snapshot().get(NomadTables.EVALS, eval.id()).isEmpty()) {
                broker.ack(eval.id(), lease.token()); // deleted by an operator (eval delete) while it was queued
                return;
            }
            long invoked = System.nanoTime();
            Schedulers.create(eval.type(), state, new WorkerPlanner(state.index()), clock).process(eval);
            timings.record("invoke_scheduler." + eval.type(), System.nanoTime() - invoked);
            broker.ack(eval.id(), lease.token());
            if (LOG.isDebugEnabled()) {
                LOG.atDebug().addKeyValue("eval_id", eval.id()).addKeyValue("job_id", eval.jobId())
                        .addKeyValue("duration_ms", (System.nanoTime() - started) / 1_000_000)
                        .log("evaluation processed");
            }
        } catch (Exception | LinkageError e) {
            if (closed) {
                return; // leadership lost mid-way: the next leader runs it again
            }
            LOG.atWarn().addKeyValue("eval_id", eval.id()).addKeyValue("job_id", eval.jobId()).setCause(e)
                    .log("scheduling failed; the evaluation goes back to the broker");
            broker.nack(eval.id(), lease.token());
        }
    }

    /** Nomad's snapshot-min-index wait: the scheduler must see at least the write that created the evaluation. */
    private SchedulerState stateAtLeast(long index) throws SchedulerException {
        long started = System.nanoTime();
        long deadline = started + SNAPSHOT_WAIT.toNanos();
        while (true) {
            StateSnapshot snapshot = store.snapshot();
            if (snapshot.latestIndex() >= index) {
                timings.record("wait_for_index", System.nanoTime() - started);
                return new SnapshotSchedulerState(snapshot);
            }
            if (System.nanoTime() > deadline) {
                throw new SchedulerException("timed out waiting for state index " + index);
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SchedulerException("interrupted waiting for state index " + index);
            }
        }
    }

    private final class WorkerPlanner implements Planner {
        private final long snapshotIndex;

        WorkerPlanner(long snapshotIndex) {
            this.snapshotIndex = snapshotIndex;
        }

        @Override
        public PlanResult submitPlan(Plan plan) throws SchedulerException {
            long started = System.nanoTime();
            workload = "Submitting";
            try {
                return planApplier.submit(plan).get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SchedulerException("interrupted submitting a plan", e);
            } catch (ExecutionException e) {
                throw new SchedulerException("plan failed: " + e.getCause().getMessage(), e.getCause());
            } finally {
                timings.record("submit_plan", System.nanoTime() - started);
                workload = "Scheduling";
            }
        }

        @Override
        public SchedulerState refreshState(long minIndex) throws SchedulerException {
            return stateAtLeast(minIndex);
        }

        @Override
        public void updateEval(Evaluation eval) throws SchedulerException {
            write(eval);
        }

        @Override
        public void createEval(Evaluation eval) throws SchedulerException {
            write(eval);
        }

        private void write(Evaluation eval) throws SchedulerException {
            Evaluation stamped = eval.toBuilder().snapshotIndex(Math.max(eval.snapshotIndex(), snapshotIndex))
                    .modifyTime(clock.millis() * 1_000_000L).build();
            try {
                writes.submitAndWait(new Command.EvalUpsert(List.of(stamped)));
            } catch (RuntimeException e) {
                throw new SchedulerException("could not write evaluation " + eval.id() + ": " + e.getMessage(), e);
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        thread.interrupt();
    }
}
