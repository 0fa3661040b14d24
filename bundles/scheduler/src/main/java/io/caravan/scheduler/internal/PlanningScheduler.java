package io.caravan.scheduler.internal;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.caravan.api.model.AllocMetric;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Deployment;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.api.model.Node;
import io.caravan.api.model.TaskGroup;
import io.caravan.scheduler.DeploymentStatusUpdate;
import io.caravan.scheduler.Plan;
import io.caravan.scheduler.PlanAnnotations;
import io.caravan.scheduler.PlanResult;
import io.caravan.scheduler.Planner;
import io.caravan.scheduler.Scheduler;
import io.caravan.scheduler.SchedulerException;
import io.caravan.scheduler.SchedulerState;
import io.caravan.scheduler.internal.placement.ClassEligibility;
import io.caravan.scheduler.internal.placement.EvalContext;
import io.caravan.scheduler.internal.placement.PlacementRequest;
import io.caravan.scheduler.internal.placement.PlacementPipeline;
import io.caravan.scheduler.internal.placement.ProposedState;
import io.caravan.scheduler.internal.reconcile.AllocStop;

/**
 * What the generic and system schedulers share (Nomad's {@code Process}): compute a plan, submit it, refresh and
 * retry while the plan applier rejects parts of it (attempts reset when a plan makes progress), then record the
 * outcome on the evaluation: status, {@code FailedTGAllocs}, {@code QueuedAllocations} and, when placements
 * failed, a blocked evaluation. An exception while scheduling fails the evaluation instead of escaping.
 */
abstract class PlanningScheduler implements Scheduler {
    private static final Logger LOG = LoggerFactory.getLogger(PlanningScheduler.class);
    static final String BLOCKED_FAILED_PLACEMENTS = "created to place remaining allocations";
    static final String BLOCKED_MAX_PLANS = "created due to placement conflicts";

    protected final Planner planner;
    protected final Clock clock;
    protected final Supplier<String> ids;
    protected final PlacementPipeline pipeline;
    protected SchedulerState state;

    PlanningScheduler(SchedulerState state, Planner planner, Clock clock, Supplier<String> ids,
                      PlacementPipeline pipeline) {
        this.state = state;
        this.planner = planner;
        this.clock = clock;
        this.ids = ids;
        this.pipeline = pipeline;
    }

    /** One attempt's plan and what it could not place. */
    static final class Attempt {
        final Job job;
        final ProposedState proposed;
        final ClassEligibility eligibility;
        final Map<String, AllocMetric> failed = new LinkedHashMap<>();
        final Map<String, Integer> queued = new LinkedHashMap<>();
        final Set<String> placedIds = new HashSet<>();
        final List<Evaluation> followUps = new ArrayList<>();
        PlanAnnotations annotations;
        /** A deployment the plan creates, and status changes of existing ones. */
        Deployment deployment;
        List<DeploymentStatusUpdate> deploymentUpdates = List.of();
        /** The deployment placements join (null: none). */
        String deploymentId;

        Attempt(Job job, ProposedState proposed, ClassEligibility eligibility) {
            this.job = job;
            this.proposed = proposed;
            this.eligibility = eligibility;
        }

        /** Counts a failed placement: the first keeps its metrics, later ones only add to the coalesced count. */
        void fail(String group, AllocMetric metric) {
            failed.merge(group, metric, (first, ignored) -> withCoalesced(first, first.coalescedFailures() + 1));
        }

        /** One more failure of a group that already failed (Nomad does not even try again). */
        void coalesce(String group) {
            failed.computeIfPresent(group, (g, first) -> withCoalesced(first, first.coalescedFailures() + 1));
        }

        boolean alreadyFailed(String group) {
            return failed.containsKey(group);
        }
    }

    /** Builds the plan for the current {@link #state}. */
    protected abstract Attempt attempt(Evaluation eval);

    /** Nomad: 5 for service and system, 2 for batch and sysbatch. */
    protected abstract int maxAttempts();

    /** Whether failed placements park the work in a blocked eval (not for system jobs: node updates re-evaluate). */
    protected abstract boolean blocksOnFailure();

    @Override
    public final void process(Evaluation eval) throws SchedulerException {
        try {
            run(eval);
        } catch (RuntimeException e) {
            LOG.atError().addKeyValue("eval_id", eval.id()).addKeyValue("job_id", eval.jobId())
                    .addKeyValue("error", e.toString()).setCause(e).log("scheduler failed");
            planner.updateEval(EvalBuilder.from(eval)
                    .status(Evaluation.STATUS_FAILED, "scheduler failed: " + e)
                    .modifyTime(now()).build());
        }
    }

    private void run(Evaluation eval) throws SchedulerException {
        int attempts = 0;
        Evaluation blocked = null;
        Attempt attempt = null;
        while (attempts < maxAttempts()) {
            attempt = attempt(eval);
            if (blocksOnFailure() && blocked == null && !attempt.failed.isEmpty()
                    && !Evaluation.STATUS_BLOCKED.equals(eval.status())) {
                blocked = blockedEval(eval, attempt, Evaluation.TRIGGER_QUEUED_ALLOCS, BLOCKED_FAILED_PLACEMENTS);
                planner.createEval(blocked);
            }
            if (attempt.proposed.isEmpty() && attempt.deployment == null && attempt.deploymentUpdates.isEmpty()
                    && !eval.annotatePlan()) {
                finish(eval, attempt, blocked, Evaluation.STATUS_COMPLETE, "");
                return;
            }
            for (Evaluation followUp : attempt.followUps) {
                planner.createEval(followUp);
            }
            PlanResult result = planner.submitPlan(plan(eval, attempt));
            int committed = adjustQueued(attempt, result);
            if (result.refreshIndex() <= 0) {
                finish(eval, attempt, blocked, Evaluation.STATUS_COMPLETE, "");
                return;
            }
            LOG.atDebug().addKeyValue("eval_id", eval.id()).addKeyValue("refresh_index", result.refreshIndex())
                    .log("plan partially rejected, refreshing state");
            state = planner.refreshState(result.refreshIndex());
            attempts = committed > 0 || !result.nodeUpdate().isEmpty() ? 0 : attempts + 1;
        }
        if (blocksOnFailure() && blocked == null) {
            blocked = blockedEval(eval, attempt, Evaluation.TRIGGER_MAX_PLANS, BLOCKED_MAX_PLANS);
            planner.createEval(blocked);
        }
        finish(eval, attempt, blocked, Evaluation.STATUS_FAILED,
                "maximum attempts reached (" + maxAttempts() + ")");
    }

    private Plan plan(Evaluation eval, Attempt attempt) {
        Job job = attempt.job;
        return new Plan(eval.id(), eval.priority(), job, job != null && Boolean.TRUE.equals(job.allAtOnce()),
                state.index(), frozen(attempt.proposed.nodeUpdate()), frozen(attempt.proposed.nodeAllocation()),
                eval.annotatePlan() ? attempt.annotations : null, attempt.deployment, attempt.deploymentUpdates);
    }

    private static Map<String, List<Allocation>> frozen(Map<String, List<Allocation>> byNode) {
        Map<String, List<Allocation>> out = new LinkedHashMap<>();
        byNode.forEach((node, allocs) -> out.put(node, List.copyOf(allocs)));
        return out;
    }

    /** Placements the applier committed are no longer queued. Returns how many there were. */
    private static int adjustQueued(Attempt attempt, PlanResult result) {
        int committed = 0;
        for (List<Allocation> allocs : result.nodeAllocation().values()) {
            for (Allocation a : allocs) {
                if (attempt.placedIds.contains(a.id())) {
                    attempt.queued.computeIfPresent(a.taskGroup(), (g, q) -> Math.max(0, q - 1));
                    committed++;
                }
            }
        }
        return committed;
    }

    private Evaluation blockedEval(Evaluation eval, Attempt attempt, String trigger, String description) {
        ClassEligibility eligibility = attempt.eligibility;
        boolean escaped = eligibility.escaped();
        return EvalBuilder.followUp(eval, attempt.job, ids.get(), trigger, Evaluation.STATUS_BLOCKED, description, now())
                .classEligibility(escaped ? Map.of() : eligibility.classes(), escaped)
                .failedTgAllocs(attempt.failed)
                .build();
    }

    private void finish(Evaluation eval, Attempt attempt, Evaluation blocked, String status, String description)
            throws SchedulerException {
        // A blocked eval that still cannot place everything stays blocked (Nomad's reblock).
        String finalStatus = Evaluation.STATUS_BLOCKED.equals(eval.status()) && !attempt.failed.isEmpty()
                && Evaluation.STATUS_COMPLETE.equals(status) ? Evaluation.STATUS_BLOCKED : status;
        EvalBuilder updated = EvalBuilder.from(eval)
                .status(finalStatus, description)
                .failedTgAllocs(attempt.failed)
                .queuedAllocations(attempt.queued)
                .snapshotIndex(state.index())
                .modifyTime(now());
        if (blocked != null) {
            updated.blockedEval(blocked.id());
        }
        LOG.atDebug().addKeyValue("eval_id", eval.id()).addKeyValue("job_id", eval.jobId())
                .addKeyValue("namespace", eval.namespace()).addKeyValue("status", finalStatus)
                .addKeyValue("queued", attempt.queued).addKeyValue("failed_groups", attempt.failed.keySet())
                .log("evaluation processed");
        if (Evaluation.STATUS_BLOCKED.equals(finalStatus)) {
            ClassEligibility eligibility = attempt.eligibility;
            updated.classEligibility(eligibility.escaped() ? Map.of() : eligibility.classes(), eligibility.escaped());
        }
        Evaluation outcome = updated.build();
        if (attempt.deploymentId != null && (outcome.deploymentId() == null || outcome.deploymentId().isEmpty())) {
            outcome = outcome.toBuilder().deploymentId(attempt.deploymentId).build(); // Nomad names the deployment
        }
        planner.updateEval(outcome);
    }

    /** The allocation as the plan stores a stop: desired stop, the reason, and the client status if the server sets one. */
    protected Allocation stopped(AllocStop stop) {
        AllocBuilder b = AllocBuilder.from(stop.alloc())
                .desired(Allocation.DESIRED_STOP, stop.description())
                .modifyTime(now());
        if (stop.clientStatus() != null) {
            b.serverClientStatus(stop.clientStatus(), now());
        }
        return b.build();
    }

    /**
     * Whether an allocation updated in place may stay on its node under the new job (constraints, drivers,
     * distinct_* may have changed). It is checked with itself out of the way, as Nomad does.
     */
    protected boolean stillFeasible(Allocation updated, Job job, EvalContext ctx, AllocStop asIfStopped) {
        Node node = ctx.node(updated.nodeId());
        TaskGroup group = job.lookupTaskGroup(updated.taskGroup());
        if (node == null || group == null) {
            return false;
        }
        Allocation stopped = stopped(asIfStopped);
        ctx.proposed().stop(stopped);
        try {
            return pipeline.feasibleOn(PlacementRequest.of(job, group, updated.name(), Set.of(), node), node, ctx);
        } finally {
            ctx.proposed().undoStop(stopped);
        }
    }

    protected long now() {
        Instant t = clock.instant();
        return t.getEpochSecond() * 1_000_000_000L + t.getNano();
    }

    /** The shuffle seed: the eval ID and the state index, so a placement replays exactly on the same state. */
    protected long seed(Evaluation eval) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < eval.id().length(); i++) {
            h ^= eval.id().charAt(i);
            h *= 0x100000001b3L;
        }
        return h ^ (state.index() * 0x9E3779B97F4A7C15L);
    }

    /** The nodes the allocations are on, as far as they still exist. */
    protected Map<String, Node> nodesOf(List<Allocation> allocs) {
        Map<String, Node> nodes = new HashMap<>();
        for (Allocation a : allocs) {
            if (!nodes.containsKey(a.nodeId())) {
                state.node(a.nodeId()).ifPresent(n -> nodes.put(n.id(), n));
            }
        }
        return nodes;
    }

    static AllocMetric withCoalesced(AllocMetric m, int coalesced) {
        return new AllocMetric(m.nodesEvaluated(), m.nodesFiltered(), m.nodesInPool(), m.nodePool(),
                m.nodesAvailable(), m.classFiltered(), m.constraintFiltered(), m.nodesExhausted(), m.classExhausted(),
                m.dimensionExhausted(), m.quotaExhausted(), m.resourcesExhausted(), m.scoreMetaData(),
                m.allocationTime(), coalesced);
    }
}
