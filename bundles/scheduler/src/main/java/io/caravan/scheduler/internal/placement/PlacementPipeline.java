package io.caravan.scheduler.internal.placement;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.caravan.api.model.Job;
import io.caravan.api.model.Node;
import io.caravan.api.model.Task;
import io.caravan.scheduler.internal.placement.check.ConstraintCheck;
import io.caravan.scheduler.internal.placement.check.DatacenterCheck;
import io.caravan.scheduler.internal.placement.check.DeviceCheck;
import io.caravan.scheduler.internal.placement.check.DistinctHostsCheck;
import io.caravan.scheduler.internal.placement.check.DistinctPropertyCheck;
import io.caravan.scheduler.internal.placement.check.DriverCheck;
import io.caravan.scheduler.internal.placement.check.HostVolumeCheck;
import io.caravan.scheduler.internal.placement.check.NodePoolCheck;
import io.caravan.scheduler.internal.placement.check.NodeReadyCheck;
import io.caravan.scheduler.internal.placement.score.BinPackScorer;
import io.caravan.scheduler.internal.placement.score.JobAntiAffinityScorer;
import io.caravan.scheduler.internal.placement.score.NodeAffinityScorer;
import io.caravan.scheduler.internal.placement.score.ReschedulePenaltyScorer;
import io.caravan.scheduler.internal.placement.score.SpreadScorer;

/**
 * Nomad's placement stack with stateless stages: candidates (ready nodes in the job's datacenters and pool, in
 * a seeded shuffle) → job and group checks, cached per computed class → transient checks → resource fit →
 * scorers, averaged over those that did not abstain → a limit of good nodes (skipping up to three that score
 * ≤ 0) → the highest score.
 */
public final class PlacementPipeline {
    public static final String CLASS_INELIGIBLE = "computed class ineligible";
    /** Nomad's {@code skipScoreThreshold} and {@code maxSkip}. */
    static final double SKIP_SCORE_THRESHOLD = 0.0;
    static final int MAX_SKIP = 3;
    /** Nomad's default {@code NodeLimitForFeasibilityChecks}, used when affinities or spreads need a wider look. */
    static final int AFFINITY_SPREAD_LIMIT = 100;

    private final List<FeasibilityCheck> candidateChecks = new ArrayList<>();
    private final List<FeasibilityCheck> jobChecks = new ArrayList<>();
    private final List<FeasibilityCheck> groupChecks = new ArrayList<>();
    private final List<FeasibilityCheck> transientChecks = new ArrayList<>();
    private final List<NodeScorer> scorers;
    private final List<String> scorerNames = new ArrayList<>();
    private final boolean[] nodeLocal;

    /** Checks run in list order within their scope: put the cheap ones first. */
    public PlacementPipeline(List<FeasibilityCheck> checks, List<NodeScorer> scorers) {
        for (FeasibilityCheck c : checks) {
            switch (c.scope()) {
                case CANDIDATE:
                    candidateChecks.add(c);
                    break;
                case JOB:
                    jobChecks.add(c);
                    break;
                case TASK_GROUP:
                    groupChecks.add(c);
                    break;
                default:
                    transientChecks.add(c);
            }
        }
        this.scorers = List.copyOf(scorers);
        scorers.forEach(s -> scorerNames.add(s.name()));
        nodeLocal = new boolean[scorers.size()];
        for (int i = 0; i < nodeLocal.length; i++) {
            nodeLocal[i] = scorers.get(i).nodeLocal();
        }
    }

    /** The built-in checks and scorers, in Nomad's order. */
    public static PlacementPipeline standard() {
        return new PlacementPipeline(
                List.of(new NodeReadyCheck(), new DatacenterCheck(), new NodePoolCheck(),
                        ConstraintCheck.forJob(), new DriverCheck(), ConstraintCheck.forTaskGroup(),
                        new DeviceCheck(), new HostVolumeCheck(), new DistinctHostsCheck(),
                        new DistinctPropertyCheck()),
                List.of(new BinPackScorer(), new JobAntiAffinityScorer(), new ReschedulePenaltyScorer(),
                        new NodeAffinityScorer(), new SpreadScorer()));
    }

    /** The nodes that pass the candidate checks (ready, datacenter, pool), shuffled with {@code seed} if asked. */
    public CandidateNodes candidates(Job job, List<Node> nodes, EvalContext ctx, long seed, boolean shuffle) {
        PlacementRequest jobOnly = PlacementRequest.forJob(job);
        List<Node> kept = new ArrayList<>();
        Map<String, int[]> perDc = new HashMap<>(); // counted unboxed, sorted once
        for (Node node : nodes) {
            if (passesAll(candidateChecks, jobOnly, node, ctx)) {
                kept.add(node);
                perDc.computeIfAbsent(node.datacenter(), dc -> new int[1])[0]++;
            }
        }
        Map<String, Integer> byDc = new TreeMap<>();
        perDc.forEach((dc, count) -> byDc.put(dc, count[0]));
        String pool = job.nodePool() == null || job.nodePool().isEmpty() ? Node.DEFAULT_POOL : job.nodePool();
        List<Node> ordered = shuffle ? CandidateNodes.shuffled(kept, seed) : List.copyOf(kept);
        int[] indexes = new int[ordered.size()];
        int[] classIds = new int[ordered.size()];
        for (int i = 0; i < indexes.length; i++) {
            indexes[i] = ctx.proposed().indexOf(ordered.get(i).id());
            classIds[i] = ctx.classId(indexes[i], ordered.get(i));
        }
        return new CandidateNodes(ordered, indexes, classIds, byDc, pool);
    }

    private static boolean passesAll(List<FeasibilityCheck> checks, PlacementRequest r, Node node, EvalContext ctx) {
        for (FeasibilityCheck c : checks) {
            if (c.test(r, node, ctx) instanceof Verdict.Reject) {
                return false;
            }
        }
        return true;
    }

    /**
     * Chooses a node for one placement; {@code baseLimit} is how many fitting nodes to compare. With spread or
     * affinities that is max(count, 100) nodes for every placement, so the loop over them reads flat arrays by node
     * index (class verdicts, the rank cache, spread values) and allocates nothing; a node's objects are read only
     * when it has changed since it was last ranked, or is rejected, or is among the best.
     */
    public Selection select(PlacementRequest request, CandidateNodes candidates, EvalContext ctx, int baseLimit) {
        long start = System.nanoTime();
        MetricsRecorder metrics = new MetricsRecorder(ctx);
        boolean jobEscaped = anyEscapes(jobChecks, request);
        boolean groupEscaped = anyEscapes(groupChecks, request);
        ctx.eligibility().markEscaped(request.group().name(), jobEscaped, groupEscaped);
        List<FeasibilityCheck> transients = new ArrayList<>(transientChecks.size());
        for (FeasibilityCheck c : transientChecks) {
            if (c.appliesTo(request)) {
                transients.add(c);
            }
        }
        ClassEligibility eligibility = ctx.eligibility();
        Scope scope = new Scope(request, jobEscaped ? null : eligibility.job(),
                groupEscaped ? null : eligibility.group(request.group().name()), transients, jobChecks.isEmpty(),
                groupChecks.isEmpty());
        ResourceFit fit = new ResourceFit(request.group(), ctx.config().memoryOversubscriptionEnabled());
        NodeScorer.Bound[] bound = bind(request, ctx);
        Scoring scoring = new Scoring(bound, nodeLocal);

        RankCache cache = ctx.rankCache(request.group().name());
        cache.sync(ctx.proposed());
        ProposedState proposed = ctx.proposed();
        Node pinned = request.pinnedNode();
        int total = pinned != null ? 1 : candidates.size();
        int limit = limit(request, baseLimit);
        int bestSlot = -1;
        double bestScore = 0;
        int seen = 0;
        int visited = 0;
        int skippedCount = 0;
        int[] skippedSlots = new int[MAX_SKIP];
        double[] skippedScores = new double[MAX_SKIP];
        for (int i = 0; i < total && seen < limit; i++) {
            int index;
            int cls;
            if (pinned != null) {
                index = proposed.indexOf(pinned.id());
                cls = ctx.classId(index, pinned);
            } else {
                index = candidates.indexAt(i);
                cls = candidates.classIdAt(i);
            }
            visited++;
            // The node itself is read only where a check must run or something is recorded about it.
            if (!scope.cachedEligible(cls) && !feasible(pinned != null ? pinned : candidates.at(i), cls, scope, ctx,
                    metrics)) {
                continue;
            }
            int slot = index >= 0 ? index : cache.outside();
            if (!cache.valid(slot)) {
                rank(pinned != null ? pinned : candidates.at(i), index, slot, cache, fit, bound, ctx);
            }
            if (cache.localCount(slot) == RankCache.EXHAUSTED) {
                RankedNode exhausted = cache.ranked(slot);
                metrics.exhausted(exhausted.node(), exhausted.exhausted());
                continue;
            }
            double score = scoring.finalScore(slot, cache);
            metrics.scored(slot, score);
            if (skippedCount < MAX_SKIP && score <= SKIP_SCORE_THRESHOLD) {
                skippedSlots[skippedCount] = slot;
                skippedScores[skippedCount++] = score;
                continue;
            }
            seen++;
            if (bestSlot < 0 || score > bestScore) {
                bestSlot = slot;
                bestScore = score;
            }
        }
        metrics.evaluated(visited);
        // When the nodes run out before the limit, the skipped ones are still options (Nomad's LimitIterator).
        for (int k = 0; k < skippedCount; k++) {
            if (seen++ >= limit) {
                break;
            }
            if (bestSlot < 0 || skippedScores[k] > bestScore) {
                bestSlot = skippedSlots[k];
                bestScore = skippedScores[k];
            }
        }
        if (pinned == null) {
            candidates.advance(visited);
        }
        RankedNode best = bestSlot < 0 ? null : scoring.ranked(bestSlot, cache);
        return new Selection(best, metrics.build(candidates, scorerNames,
                Duration.ofNanos(System.nanoTime() - start), slot -> scoring.ranked(slot, cache)));
    }

    /**
     * Whether the node still passes the job's, the group's and the transient checks (no resource fit, nothing
     * recorded): an in-place update must still be allowed where its allocation runs.
     */
    public boolean feasibleOn(PlacementRequest request, Node node, EvalContext ctx) {
        List<FeasibilityCheck> all = new ArrayList<>(jobChecks);
        all.addAll(groupChecks);
        for (FeasibilityCheck c : transientChecks) {
            if (c.appliesTo(request)) {
                all.add(c);
            }
        }
        return firstReject(all, request, node, ctx) == null;
    }

    private NodeScorer.Bound[] bind(PlacementRequest request, EvalContext ctx) {
        NodeScorer.Bound[] bound = new NodeScorer.Bound[scorers.size()];
        for (int i = 0; i < bound.length; i++) {
            bound[i] = scorers.get(i).bind(request, ctx);
        }
        return bound;
    }

    /**
     * Fits the group on the node and scores it with the node-local scorers (or marks it exhausted), and caches that
     * in {@code slot} until the node's allocations change.
     */
    private void rank(Node node, int index, int slot, RankCache cache, ResourceFit fit, NodeScorer.Bound[] bound,
                      EvalContext ctx) {
        NodeUsage usage = index >= 0 ? ctx.proposed().usage(index) : ctx.proposed().usage(node.id());
        RankedNode ranked = new RankedNode(node, index, usage);
        String exhausted = fit.fit(ranked, ctx);
        ranked.exhausted(exhausted);
        if (exhausted != null) {
            cache.put(slot, ranked, 0, RankCache.EXHAUSTED);
            return;
        }
        double[] scores = ranked.scoreSlots(bound.length);
        double sum = 0;
        int count = 0;
        for (int i = 0; i < bound.length; i++) {
            if (nodeLocal[i]) {
                scores[i] = bound[i] == null ? Double.NaN : bound[i].score(ranked);
                if (!Double.isNaN(scores[i])) {
                    sum += scores[i];
                    count++;
                }
            }
        }
        cache.put(slot, ranked, sum, count);
    }

    /**
     * One selection's scorers: the final score of a ranked node is the mean of the scores that did not abstain, summed
     * in pipeline order. When every scorer that depends on the placement comes after the node-local ones and can
     * score by node index, that sum is the cached node-local sum plus theirs, and a node's objects are not read.
     */
    private static final class Scoring {
        private final NodeScorer.Bound[] bound;
        private final boolean[] nodeLocal;
        /** The placement-dependent scorers in pipeline order, when {@link #indexed}. */
        private final NodeScorer.IndexedBound[] transients;
        private final boolean indexed;

        Scoring(NodeScorer.Bound[] bound, boolean[] nodeLocal) {
            this.bound = bound;
            this.nodeLocal = nodeLocal;
            List<NodeScorer.IndexedBound> byIndex = new ArrayList<>();
            int lastLocal = -1;
            int firstTransient = bound.length;
            boolean allIndexed = true;
            for (int i = 0; i < bound.length; i++) {
                if (bound[i] == null) {
                    continue;
                }
                if (nodeLocal[i]) {
                    lastLocal = i;
                } else {
                    firstTransient = Math.min(firstTransient, i);
                    if (bound[i] instanceof NodeScorer.IndexedBound) {
                        byIndex.add((NodeScorer.IndexedBound) bound[i]);
                    } else {
                        allIndexed = false;
                    }
                }
            }
            indexed = allIndexed && lastLocal < firstTransient;
            transients = byIndex.toArray(new NodeScorer.IndexedBound[0]);
        }

        double finalScore(int slot, RankCache cache) {
            if (!indexed || slot == cache.outside()) {
                return foldAll(cache.ranked(slot));
            }
            double sum = cache.localSum(slot);
            int count = cache.localCount(slot);
            for (NodeScorer.IndexedBound b : transients) {
                double s = b.scoreAt(slot);
                if (!Double.isNaN(s)) {
                    sum += s;
                    count++;
                }
            }
            return count == 0 ? 0 : sum / count;
        }

        /** The node of a slot with every scorer's score and its final score filled in (for the chosen and the best). */
        RankedNode ranked(int slot, RankCache cache) {
            RankedNode ranked = cache.ranked(slot);
            ranked.assignFinalScore(foldAll(ranked));
            return ranked;
        }

        /** Adds the scores that depend on the placement to the node's, and averages those that did not abstain. */
        private double foldAll(RankedNode ranked) {
            double[] scores = ranked.scoreSlots(bound.length);
            double sum = 0;
            int count = 0;
            for (int i = 0; i < bound.length; i++) {
                if (!nodeLocal[i]) {
                    scores[i] = bound[i] == null ? Double.NaN : bound[i].score(ranked);
                }
                if (!Double.isNaN(scores[i])) {
                    sum += scores[i];
                    count++;
                }
            }
            return count == 0 ? 0 : sum / count;
        }
    }

    /** Nomad widens the look to max(count, 100) nodes when affinities or spreads have to be weighed. */
    static int limit(PlacementRequest request, int baseLimit) {
        Job job = request.job();
        boolean preferences = !job.affinities().isEmpty() || !job.spreads().isEmpty()
                || !request.group().affinities().isEmpty() || !request.group().spreads().isEmpty();
        for (Task t : request.group().tasks()) {
            preferences |= !t.affinities().isEmpty();
        }
        return preferences ? Math.max(request.desiredCount(), AFFINITY_SPREAD_LIMIT) : baseLimit;
    }

    private boolean feasible(Node node, int cls, Scope scope, EvalContext ctx, MetricsRecorder metrics) {
        return passes(jobChecks, scope.jobVerdicts, cls, node, scope, ctx, metrics)
                && passes(groupChecks, scope.groupVerdicts, cls, node, scope, ctx, metrics)
                && passes(scope.transients, null, cls, node, scope, ctx, metrics);
    }

    /** Runs one list of checks, consulting and filling the class cache unless {@code verdicts} is null (escaped). */
    private static boolean passes(List<FeasibilityCheck> checks, ClassEligibility.Verdicts verdicts, int cls,
                                  Node node, Scope scope, EvalContext ctx, MetricsRecorder metrics) {
        if (checks.isEmpty()) {
            return true;
        }
        byte cached = verdicts == null ? ClassEligibility.Verdicts.UNKNOWN : verdicts.state(cls);
        if (cached == ClassEligibility.Verdicts.ELIGIBLE) {
            return true;
        }
        if (cached == ClassEligibility.Verdicts.INELIGIBLE) {
            metrics.filtered(node, CLASS_INELIGIBLE);
            return false;
        }
        Verdict.Reject reject = firstReject(checks, scope.request, node, ctx);
        if (verdicts != null && (reject == null || reject.classWide())) {
            verdicts.set(cls, reject == null);
        }
        if (reject != null) {
            metrics.filtered(node, reject.reason());
            return false;
        }
        return true;
    }

    /** What one selection needs at hand for every node. */
    private static final class Scope {
        final PlacementRequest request;
        /** Null where constraints escape class caching. */
        final ClassEligibility.Verdicts jobVerdicts;
        final ClassEligibility.Verdicts groupVerdicts;
        final List<FeasibilityCheck> transients;

        private final boolean noJobChecks;
        private final boolean noGroupChecks;

        Scope(PlacementRequest request, ClassEligibility.Verdicts jobVerdicts, ClassEligibility.Verdicts groupVerdicts,
              List<FeasibilityCheck> transients, boolean noJobChecks, boolean noGroupChecks) {
            this.request = request;
            this.jobVerdicts = jobVerdicts;
            this.groupVerdicts = groupVerdicts;
            this.transients = transients;
            this.noJobChecks = noJobChecks;
            this.noGroupChecks = noGroupChecks;
        }

        /** Whether the class is known to pass every check, from the class cache alone (no transient checks). */
        boolean cachedEligible(int cls) {
            return transients.isEmpty()
                    && (noJobChecks || jobVerdicts != null && jobVerdicts.state(cls) == ClassEligibility.Verdicts.ELIGIBLE)
                    && (noGroupChecks
                            || groupVerdicts != null && groupVerdicts.state(cls) == ClassEligibility.Verdicts.ELIGIBLE);
        }
    }

    private static Verdict.Reject firstReject(List<FeasibilityCheck> checks, PlacementRequest request, Node node,
                                              EvalContext ctx) {
        for (FeasibilityCheck c : checks) {
            Verdict v = c.test(request, node, ctx);
            if (v instanceof Verdict.Reject) {
                return (Verdict.Reject) v;
            }
        }
        return null;
    }

    private static boolean anyEscapes(List<FeasibilityCheck> checks, PlacementRequest request) {
        for (FeasibilityCheck c : checks) {
            if (c.escapes(request)) {
                return true;
            }
        }
        return false;
    }
}
