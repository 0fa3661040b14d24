package io.caravan.server.internal;

import java.util.Map;

import io.caravan.api.model.JobSummary;
import io.caravan.metrics.MetricSink;
import io.caravan.state.StateSnapshot;

/**
 * The leader's metrics under Nomad's names: the eval broker ({@code nomad.nomad.broker.*}, in total and per scheduler
 * type), blocked evaluations, the plan queue and its timings, the heartbeat timers, and every job's allocations by
 * task group ({@code nomad.nomad.job_summary.*}, labels {@code job}, {@code namespace}, {@code task_group}).
 */
final class LeaderMetrics {
    private LeaderMetrics() {
    }

    static void report(MetricSink sink, EvalBroker.Stats broker, int blockedEvals, PlanApplier plans, int heartbeats,
                       StateSnapshot state) {
        Map<String, String> none = Map.of();
        sink.gauge("nomad.nomad.broker.total_ready", none, broker.ready());
        sink.gauge("nomad.nomad.broker.total_unacked", none, broker.unacked());
        // Nomad's broker calls evaluations waiting on their job's outstanding one "pending" (older releases "blocked").
        sink.gauge("nomad.nomad.broker.total_pending", none, broker.pending());
        sink.gauge("nomad.nomad.broker.total_blocked", none, broker.pending());
        sink.gauge("nomad.nomad.broker.total_waiting", none, broker.waiting());
        broker.readyByType().forEach((type, n) -> sink.gauge("nomad.nomad.broker." + type + "_ready", none, n));
        broker.unackedByType().forEach((type, n) -> sink.gauge("nomad.nomad.broker." + type + "_unacked", none, n));
        sink.gauge("nomad.nomad.blocked_evals.total_blocked", none, blockedEvals);
        sink.gauge("nomad.nomad.plan.queue_depth", none, plans.queueDepth());
        sink.timer("nomad.nomad.plan.evaluate", none, plans.evaluate.snapshot());
        sink.timer("nomad.nomad.plan.apply", none, plans.applied.snapshot());
        sink.gauge("nomad.nomad.heartbeat.active", none, heartbeats);
        state.all(NomadTables.JOB_SUMMARIES).forEach(job -> jobSummary(sink, job));
    }

    // Constant names: seven per job and group every pass (a string built and hashed each time cost a sixth of a
    // register-heavy leader's CPU with tens of thousands of jobs).
    private static final String QUEUED = "nomad.nomad.job_summary.queued";
    private static final String COMPLETE = "nomad.nomad.job_summary.complete";
    private static final String FAILED = "nomad.nomad.job_summary.failed";
    private static final String RUNNING = "nomad.nomad.job_summary.running";
    private static final String STARTING = "nomad.nomad.job_summary.starting";
    private static final String LOST = "nomad.nomad.job_summary.lost";
    private static final String UNKNOWN = "nomad.nomad.job_summary.unknown";

    private static void jobSummary(MetricSink sink, JobSummary job) {
        job.summary().forEach((group, s) -> {
            Map<String, String> labels = Map.of("job", job.jobId(), "namespace", job.namespace(), "task_group", group);
            sink.gauge(QUEUED, labels, s.queued());
            sink.gauge(COMPLETE, labels, s.complete());
            sink.gauge(FAILED, labels, s.failed());
            sink.gauge(RUNNING, labels, s.running());
            sink.gauge(STARTING, labels, s.starting());
            sink.gauge(LOST, labels, s.lost());
            sink.gauge(UNKNOWN, labels, s.unknown());
        });
    }
}
