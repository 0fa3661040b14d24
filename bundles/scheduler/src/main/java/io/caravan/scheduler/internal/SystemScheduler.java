package io.caravan.scheduler.internal;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.api.model.Node;
import io.caravan.scheduler.PlanAnnotations;
import io.caravan.scheduler.Planner;
import io.caravan.scheduler.SchedulerState;
import io.caravan.scheduler.internal.placement.CandidateNodes;
import io.caravan.scheduler.internal.placement.EvalContext;
import io.caravan.scheduler.internal.placement.PlacementPipeline;
import io.caravan.scheduler.internal.placement.PlacementRequest;
import io.caravan.scheduler.internal.placement.ProposedState;
import io.caravan.scheduler.internal.placement.Selection;
import io.caravan.scheduler.internal.reconcile.AllocStop;
import io.caravan.scheduler.internal.reconcile.Placement;
import io.caravan.scheduler.internal.reconcile.ReconcileResult;
import io.caravan.scheduler.internal.reconcile.SystemInput;
import io.caravan.scheduler.internal.reconcile.SystemReconciler;

/**
 * The scheduler of {@code system} and {@code sysbatch} jobs: one allocation per group on every ready node of the
 * job's datacenters and pool, each placement checked on its own node. A node whose constraints rule the job out
 * is simply skipped; on a node that is too full, allocations of jobs at least 10 priority points lower are evicted
 * if the scheduler configuration enables preemption for the type ({@link Preemption}), otherwise the placement
 * fails. No blocked evals: node updates re-evaluate system jobs.
 */
public final class SystemScheduler extends PlanningScheduler {
    private final boolean sysbatch;

    public SystemScheduler(boolean sysbatch, SchedulerState state, Planner planner, Clock clock,
                           Supplier<String> ids, PlacementPipeline pipeline) {
        super(state, planner, clock, ids, pipeline);
        this.sysbatch = sysbatch;
    }

    @Override
    protected int maxAttempts() {
        return sysbatch ? 2 : 5;
    }

    @Override
    protected boolean blocksOnFailure() {
        return false;
    }

    @Override
    protected Attempt attempt(Evaluation eval) {
        Job job = state.job(eval.namespace(), eval.jobId()).orElse(null);
        ProposedState proposed = new ProposedState(state, eval.namespace(), eval.jobId());
        EvalContext ctx = new EvalContext(proposed, state.configuration(job), seed(eval));
        Attempt attempt = new Attempt(job, proposed, ctx.eligibility());
        boolean running = job != null && !Boolean.TRUE.equals(job.stop());
        CandidateNodes candidates = running
                ? pipeline.candidates(job, state.nodes(), ctx, 0, false)
                : CandidateNodes.none(Node.DEFAULT_POOL);
        List<Allocation> allocs = state.allocsByJob(eval.namespace(), eval.jobId());
        long now = now();

        ReconcileResult result = SystemReconciler.reconcile(new SystemInput(job, sysbatch, allocs,
                candidates.nodes(), nodesOf(allocs), eval, now));
        attempt.annotations = new PlanAnnotations(result.desiredTgUpdates());
        for (AllocStop stop : result.stops()) {
            proposed.stop(stopped(stop));
        }
        for (Allocation updated : result.inPlaceUpdates()) {
            AllocStop notWanted = AllocStop.notNeeded(updated);
            if (stillFeasible(updated, job, ctx, notWanted)) {
                proposed.update(updated);
            } else {
                proposed.stop(stopped(notWanted)); // the new version rules this node out
            }
        }
        for (Placement p : result.placements()) {
            place(p, attempt, candidates, ctx, eval, now);
        }
        return attempt;
    }

    private boolean preemptionEnabled() {
        return sysbatch ? state.configuration().preemptSysBatch() : state.configuration().preemptSystem();
    }

    /**
     * Evicts lower-priority allocations on the node, one at a time, until the placement fits; if it never does,
     * nothing is evicted and the original failure stands.
     */
    private Selection preempting(PlacementRequest request, CandidateNodes candidates, EvalContext ctx,
                                 String allocId, List<Allocation> evicted, Selection failure) {
        Node node = request.pinnedNode();
        for (Allocation victim : Preemption.candidates(ctx.proposed().allocs(node.id()), request.job())) {
            Allocation eviction = AllocBuilder.from(victim)
                    .desired(Allocation.DESIRED_EVICT, Preemption.description(allocId))
                    .preemptedBy(allocId).modifyTime(now()).build();
            ctx.proposed().stop(eviction);
            evicted.add(eviction);
            Selection retry = pipeline.select(request, candidates, ctx, 1);
            if (retry.found()) {
                return retry;
            }
        }
        evicted.forEach(ctx.proposed()::undoStop);
        evicted.clear();
        return failure;
    }

    private void place(Placement p, Attempt attempt, CandidateNodes candidates, EvalContext ctx, Evaluation eval,
                       long now) {
        String group = p.group().name();
        attempt.queued.merge(group, 1, Integer::sum);
        Allocation stopPrevious = p.stopPrevious() == null ? null : stopped(p.stopPrevious());
        if (stopPrevious != null) {
            attempt.proposed.stop(stopPrevious);
        }
        Node node = ctx.node(p.nodeId());
        PlacementRequest request = PlacementRequest.of(attempt.job, p.group(), p.name(), Set.of(), node);
        Selection selection = pipeline.select(request, candidates, ctx, 1);
        String allocId = ids.get();
        List<Allocation> evicted = new ArrayList<>();
        if (!selection.found() && selection.metric().nodesFiltered() == 0 && preemptionEnabled()) {
            selection = preempting(request, candidates, ctx, allocId, evicted, selection);
        }
        if (!selection.found()) {
            if (stopPrevious != null) {
                attempt.proposed.undoStop(stopPrevious);
            }
            if (selection.metric().nodesFiltered() > 0) {
                attempt.queued.merge(group, -1, Integer::sum); // the job does not want this node
            } else {
                attempt.fail(group, selection.metric());
            }
            return;
        }
        Job job = attempt.job;
        Allocation alloc = AllocBuilder.create(allocId, job.namespace(), eval.id(), p.name(), node.id(),
                node.name(), job, group, selection.chosen().resources(), selection.metric(),
                p.previous() == null ? null : p.previous().id(), null, now);
        if (!evicted.isEmpty()) {
            alloc = AllocBuilder.from(alloc).preemptedAllocations(
                    evicted.stream().map(Allocation::id).collect(Collectors.toList())).build();
        }
        attempt.proposed.place(alloc);
        attempt.placedIds.add(alloc.id());
        if (stopPrevious != null) {
            attempt.proposed.stop(AllocBuilder.from(stopPrevious).nextAllocation(alloc.id()).build());
        }
    }
}
