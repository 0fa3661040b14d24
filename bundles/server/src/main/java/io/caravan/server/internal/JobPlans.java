package io.caravan.server.internal;

import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.caravan.api.model.AllocMetric;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.api.model.TaskGroup;
import io.caravan.scheduler.Plan;
import io.caravan.scheduler.PlanAnnotations;
import io.caravan.scheduler.PlanResult;
import io.caravan.scheduler.Planner;
import io.caravan.scheduler.SchedulerException;
import io.caravan.scheduler.SchedulerState;
import io.caravan.scheduler.Schedulers;
import io.caravan.state.StateSnapshot;

/**
 * {@code job plan}: the scheduler runs on current state with the submitted job in place of the stored one, and a
 * planner that accepts every plan and writes nothing. What it would have done comes back as Nomad's
 * {@code JobPlanResponse}, with the field-level diff of {@link JobDiffs} and each group's planned updates.
 */
final class JobPlans {
    private JobPlans() {
    }

    /** Nomad's {@code JobPlanResponse}. */
    record PlanResponse(PlanAnnotations annotations, Map<String, AllocMetric> failedTgAllocs, long jobModifyIndex,
                        List<Evaluation> createdEvals, JobDiffs.JobDiff diff, String nextPeriodicLaunch, String warnings,
                        long index) {}

    static PlanResponse plan(StateSnapshot snapshot, Job submitted, Clock clock) throws SchedulerException {
        Job existing = snapshot.get(NomadTables.JOBS, NomadTables.key(submitted.namespace(), submitted.id()))
                .orElse(null);
        boolean unchanged = existing != null && JobApply.sameSpec(existing, submitted);
        long version = existing == null ? 0 : existing.version() + (unchanged ? 0 : 1);
        // As if registered at the next index: a changed job has a new JobModifyIndex, which is how the reconciler
        // tells its allocations need an update.
        long next = snapshot.latestIndex() + 1;
        Job proposed = submitted.withVersion(version).withStop(false).withStatus(Job.STATUS_PENDING, "")
                .withIndexes(existing == null ? next : existing.createIndex(), next,
                        unchanged ? existing.jobModifyIndex() : next);
        long now = clock.millis() * 1_000_000L;
        Evaluation eval = Evaluation.forJob(UUID.randomUUID().toString(), proposed, Evaluation.TRIGGER_JOB_REGISTER,
                now).toBuilder().annotatePlan(true).modifyIndex(snapshot.latestIndex()).build();
        DryRun planner = new DryRun(snapshot.latestIndex());
        Schedulers.create(proposed.type(), new SnapshotSchedulerState(snapshot, proposed), planner,
                clock).process(eval);
        Evaluation outcome = planner.updated == null ? eval : planner.updated;
        PlanAnnotations annotations = planner.plan == null || planner.plan.annotations() == null
                ? new PlanAnnotations(Map.of()) : planner.plan.annotations();
        return new PlanResponse(annotations, outcome.failedTgAllocs(),
                existing == null ? 0 : existing.jobModifyIndex(), planner.created,
                diff(existing, submitted, annotations), nextLaunch(submitted, clock), "", snapshot.latestIndex());
    }

    /** When the dispatcher would launch the job if it were registered now; Go's zero time when it never would. */
    static String nextLaunch(Job job, Clock clock) {
        java.time.Instant next = PeriodicJobs.isPeriodicActive(job)
                ? PeriodicJobs.next(job.periodic(), clock.instant()) : null;
        return next == null ? "0001-01-01T00:00:00Z" : next.toString();
    }

    static JobDiffs.JobDiff diff(Job before, Job after, PlanAnnotations annotations) {
        Map<String, Map<String, Long>> updates = new java.util.HashMap<>();
        annotations.desiredTgUpdates().keySet().forEach(group -> updates.put(group, updates(annotations, group)));
        return JobDiffs.diff(before, after, updates);
    }

    private static Map<String, Long> updates(PlanAnnotations annotations, String group) {
        PlanAnnotations.DesiredUpdates u = annotations.desiredTgUpdates().get(group);
        if (u == null) {
            return Map.of();
        }
        Map<String, Long> out = new LinkedHashMap<>();
        put(out, "create", u.place());
        put(out, "destroy", u.stop());
        put(out, "migrate", u.migrate());
        put(out, "in-place update", u.inPlaceUpdate());
        put(out, "create/destroy update", u.destructiveUpdate());
        put(out, "canary", u.canary());
        put(out, "ignore", u.ignore());
        return out;
    }

    private static void put(Map<String, Long> out, String key, long n) {
        if (n > 0) {
            out.put(key, n);
        }
    }

    /** Accepts every plan, records it, writes nothing. */
    private static final class DryRun implements Planner {
        private final long index;
        private Plan plan;
        private Evaluation updated;
        private final List<Evaluation> created = new ArrayList<>();

        DryRun(long index) {
            this.index = index;
        }

        @Override
        public PlanResult submitPlan(Plan plan) {
            this.plan = plan;
            return new PlanResult(plan.nodeUpdate(), plan.nodeAllocation(), index, 0);
        }

        @Override
        public SchedulerState refreshState(long minIndex) throws SchedulerException {
            throw new SchedulerException("a dry run never needs fresher state");
        }

        @Override
        public void updateEval(Evaluation eval) {
            updated = eval;
        }

        @Override
        public void createEval(Evaluation eval) {
            created.add(eval);
        }
    }
}
