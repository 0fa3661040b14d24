package io.caravan.scheduler.internal;

import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

import io.caravan.api.model.AllocDeploymentStatus;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.api.model.Node;
import io.caravan.api.model.RescheduleTracker;
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
import io.caravan.scheduler.internal.reconcile.ClusterReconciler;
import io.caravan.scheduler.internal.reconcile.Placement;
import io.caravan.scheduler.internal.reconcile.ReconcileInput;
import io.caravan.scheduler.internal.reconcile.ReconcileResult;
import io.caravan.scheduler.internal.reconcile.Reschedule;

/**
 * The scheduler of {@code service} and {@code batch} jobs: reconcile with {@link ClusterReconciler}, place through
 * the pipeline over a seeded shuffle of the candidates, compare {@code max(2, ⌈log2 n⌉)} nodes for services and
 * two for batch (power of two choices).
 */
public final class GenericScheduler extends PlanningScheduler {
    /**
     * The most placements one evaluation makes; the rest stay queued for a follow-up evaluation, which the broker
     * hands out once this one is acked. So one evaluation holds a worker, and its plan one Raft entry, for a bounded
     * time and size however large the job (README "Limits").
     */
    static final int MAX_PLACEMENTS_PER_EVAL = 5000;
    static final String FOLLOW_UP_REMAINING = "created to place remaining allocations (at most "
            + MAX_PLACEMENTS_PER_EVAL + " per evaluation)";

    private final boolean batch;

    public GenericScheduler(boolean batch, SchedulerState state, Planner planner, Clock clock, Supplier<String> ids,
                            PlacementPipeline pipeline) {
        super(state, planner, clock, ids, pipeline);
        this.batch = batch;
    }

    @Override
    protected int maxAttempts() {
        return batch ? 2 : 5;
    }

    @Override
    protected boolean blocksOnFailure() {
        return true;
    }

    @Override
    protected Attempt attempt(Evaluation eval) {
        Job job = state.job(eval.namespace(), eval.jobId()).orElse(null);
        ProposedState proposed = new ProposedState(state, eval.namespace(), eval.jobId());
        EvalContext ctx = new EvalContext(proposed, state.configuration(job), seed(eval));
        Attempt attempt = new Attempt(job, proposed, ctx.eligibility());
        List<Allocation> allocs = state.allocsByJob(eval.namespace(), eval.jobId());
        long now = now();

        ReconcileResult result = ClusterReconciler.reconcile(new ReconcileInput(job, batch, allocs, nodesOf(allocs),
                eval, now, ids, batch ? null : state.latestDeployment(eval.namespace(), eval.jobId()).orElse(null)));
        attempt.annotations = new PlanAnnotations(result.desiredTgUpdates());
        attempt.deployment = result.deployment();
        attempt.deploymentUpdates = result.deploymentUpdates();
        attempt.deploymentId = result.deploymentId();
        attempt.followUps.addAll(result.followUpEvals());
        Map<String, Allocation> stoppedById = new HashMap<>();
        for (AllocStop stop : result.stops()) {
            Allocation s = stopped(stop);
            proposed.stop(s);
            stoppedById.put(s.id(), s);
        }
        List<Placement> placements = new ArrayList<>(result.placements());
        for (Allocation inPlace : result.inPlaceUpdates()) {
            // Nomad: an allocation updated in place joins the deployment, whose health it must show again.
            Allocation updated = result.deploymentId() == null || result.deploymentId().equals(inPlace.deploymentId())
                    ? inPlace : inPlace.toBuilder().deploymentId(result.deploymentId()).deploymentStatus(null).build();
            AllocStop replaced = new AllocStop(updated, AllocStop.UPDATING, null);
            if (stillFeasible(updated, job, ctx, replaced)) {
                proposed.update(updated);
            } else {
                // The node no longer suits the new version: replace the allocation instead.
                Allocation original = byId(allocs, updated.id());
                placements.add(new Placement(updated.name(), job.lookupTaskGroup(updated.taskGroup()),
                        Placement.Kind.DESTRUCTIVE, original, new AllocStop(original, AllocStop.UPDATING, null),
                        null));
            }
        }
        result.attributeUpdates().forEach(proposed::annotate);
        if (!placements.isEmpty()) {
            place(placements, attempt, ctx, stoppedById, eval, now);
        }
        return attempt;
    }

    private void place(List<Placement> placements, Attempt attempt, EvalContext ctx,
                       Map<String, Allocation> stoppedById, Evaluation eval, long now) {
        Job job = attempt.job;
        CandidateNodes candidates = pipeline.candidates(job, state.nodes(), ctx, seed(eval), true);
        int limit = batch ? 2 : Math.max(2, (int) Math.ceil(Math.log(Math.max(1, candidates.size())) / Math.log(2)));
        int placed = 0;
        boolean deferred = false;
        for (Placement p : placements) {
            String group = p.group().name();
            attempt.queued.merge(group, 1, Integer::sum);
            if (attempt.alreadyFailed(group)) {
                attempt.coalesce(group); // same group, same outcome: only counted
                continue;
            }
            if (placed >= MAX_PLACEMENTS_PER_EVAL) {
                deferred = true; // stays queued: the follow-up evaluation places it
                continue;
            }
            Allocation stopPrevious = p.stopPrevious() == null ? null : stopped(p.stopPrevious());
            if (stopPrevious != null) {
                attempt.proposed.stop(stopPrevious); // frees the old allocation's resources for its replacement
            }
            Selection selection = select(job, p, candidates, ctx, limit);
            if (!selection.found()) {
                if (stopPrevious != null) {
                    attempt.proposed.undoStop(stopPrevious);
                }
                attempt.fail(group, selection.metric());
                continue;
            }
            Node node = selection.chosen().node();
            RescheduleTracker tracker = p.rescheduling() ? Reschedule.trackerFor(p.previous(), now) : null;
            Allocation alloc = AllocBuilder.create(ids.get(), job.namespace(), eval.id(), p.name(), node.id(),
                    node.name(), job, group, selection.chosen().resources(), selection.metric(),
                    p.previous() == null ? null : p.previous().id(), tracker, now);
            if (attempt.deploymentId != null) {
                alloc = alloc.toBuilder().deploymentId(attempt.deploymentId)
                        .deploymentStatus(new AllocDeploymentStatus(null, null, p.canary(), 0)).build();
            }
            attempt.proposed.place(alloc);
            attempt.placedIds.add(alloc.id());
            placed++;
            linkPrevious(attempt.proposed, p, alloc, stopPrevious != null ? stopPrevious : stoppedById.get(
                    p.previous() == null ? "" : p.previous().id()));
        }
        if (deferred) {
            attempt.followUps.add(EvalBuilder.followUp(eval, job, ids.get(), Evaluation.TRIGGER_QUEUED_ALLOCS,
                    Evaluation.STATUS_PENDING, FOLLOW_UP_REMAINING, now).build());
        }
    }

    /**
     * With a sticky ephemeral disk a replacement first tries the node its predecessor ran on (Nomad's preferred
     * node), then any node.
     */
    private Selection select(Job job, Placement p, CandidateNodes candidates, EvalContext ctx, int limit) {
        Node preferred = preferredNode(p, ctx);
        if (preferred != null) {
            Selection onPrevious = pipeline.select(
                    PlacementRequest.of(job, p.group(), p.name(), penaltyNodes(p), preferred), candidates, ctx, 1);
            if (onPrevious.found()) {
                return onPrevious;
            }
        }
        return pipeline.select(PlacementRequest.of(job, p.group(), p.name(), penaltyNodes(p), null), candidates,
                ctx, limit);
    }

    private static Node preferredNode(Placement p, EvalContext ctx) {
        boolean sticky = p.group().ephemeralDisk() != null && Boolean.TRUE.equals(p.group().ephemeralDisk().sticky());
        if (!sticky || p.previous() == null) {
            return null;
        }
        Node node = ctx.node(p.previous().nodeId());
        return node != null && node.ready() ? node : null;
    }

    private static Allocation byId(List<Allocation> allocs, String id) {
        for (Allocation a : allocs) {
            if (a.id().equals(id)) {
                return a;
            }
        }
        throw new IllegalStateException("in-place update of an unknown allocation " + id);
    }

    /** The replaced allocation's stop records its successor ({@code NextAllocation}). */
    private static void linkPrevious(ProposedState proposed, Placement p, Allocation replacement, Allocation stop) {
        if (p.previous() != null && stop != null) {
            proposed.stop(AllocBuilder.from(stop).nextAllocation(replacement.id()).build());
        }
    }

    /** A rescheduled allocation avoids the node it failed on and those its predecessors failed on. */
    private static Set<String> penaltyNodes(Placement p) {
        if (!p.rescheduling() || p.previous() == null) {
            return Set.of();
        }
        Set<String> nodes = new LinkedHashSet<>();
        nodes.add(p.previous().nodeId());
        if (p.previous().rescheduleTracker() != null) {
            p.previous().rescheduleTracker().events().forEach(e -> nodes.add(e.prevNodeId()));
        }
        return nodes;
    }
}
