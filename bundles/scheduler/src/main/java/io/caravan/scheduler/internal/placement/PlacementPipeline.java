package io.caravan.scheduler.internal.placement;

import java.time.Duration;
import java.util.ArrayList;
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
        Map<String, Integer> byDc = new TreeMap<>();
        for (Node node : nodes) {
            if (passesAll(candidateChecks, jobOnly, node, ctx)) {
                kept.add(node);
                byDc.merge(node.datacenter(), 1, Integer::sum);
            }
        }
        String pool = job.nodePool() == null || job.nodePool().isEmpty() ? Node.DEFAULT_POOL : job.nodePool();
        List<Node> ordered = shuffle ? CandidateNodes.shuffled(kept, seed) : List.copyOf(kept);
        int[] indexes = new int[ordered.size()];
        for (int i = 0; i < indexes.length; i++) {
            indexes[i] = ctx.proposed().indexOf(ordered.get(i).id());
        }
        return new CandidateNodes(ordered, indexes, byDc, pool);
    }

    private static boolean passesAll(List<FeasibilityCheck> checks, PlacementRequest r, Node node, EvalContext ctx) {
        for (FeasibilityCheck c : checks) {
            if (c.test(r, node, ctx) instanceof Verdict.Reject) {
                return false;
            }
        }
        return true;
    }

    /** Chooses a node for one placement; {@code baseLimit} is how many fitting nodes to compare. */
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
                groupEscaped ? null : eligibility.group(request.group().name()), transients);
        ResourceFit fit = new ResourceFit(request.group(), ctx.config().memoryOversubscriptionEnabled());
        NodeScorer.Bound[] bound = new NodeScorer.Bound[scorers.size()];
        for (int i = 0; i < bound.length; i++) {
            bound[i] = scorers.get(i).bind(request, ctx);
        }

        RankCache cache = ctx.rankCache(request.group().name());
        Node pinned = request.pinnedNode();
        int total = pinned != null ? 1 : candidates.size();
        int limit = limit(request, baseLimit);
        RankedNode best = null;
        int seen = 0;
        int visited = 0;
        List<RankedNode> skipped = new ArrayList<>(MAX_SKIP);
        for (int i = 0; i < total && seen < limit; i++) {
            Node node = pinned != null ? pinned : candidates.at(i);
            int index = pinned != null ? ctx.proposed().indexOf(pinned.id()) : candidates.indexAt(i);
            visited++;
            metrics.evaluated();
            if (!feasible(node, index, scope, ctx, metrics)) {
                continue;
            }
            RankedNode ranked = rank(node, index, cache, fit, bound, ctx);
            if (ranked.exhausted() != null) {
                metrics.exhausted(node, ranked.exhausted());
                continue;
            }
            scoreTransient(ranked, bound);
            metrics.scored(ranked);
            if (skipped.size() < MAX_SKIP && ranked.finalScore() <= SKIP_SCORE_THRESHOLD) {
                skipped.add(ranked);
                continue;
            }
            seen++;
            best = better(best, ranked);
        }
        // When the nodes run out before the limit, the skipped ones are still options (Nomad's LimitIterator).
        for (RankedNode ranked : skipped) {
            if (seen++ >= limit) {
                break;
            }
            best = better(best, ranked);
        }
        if (pinned == null) {
            candidates.advance(visited);
        }
        return new Selection(best, metrics.build(candidates, scorerNames, Duration.ofNanos(System.nanoTime() - start)));
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

    private static RankedNode better(RankedNode best, RankedNode candidate) {
        return best == null || candidate.finalScore() > best.finalScore() ? candidate : best;
    }

    /**
     * The node fitted and scored by the node-local scorers (or marked exhausted), from the cache when its
     * allocations have not changed since.
     */
    private RankedNode rank(Node node, int index, RankCache cache, ResourceFit fit, NodeScorer.Bound[] bound,
                            EvalContext ctx) {
        int version = index >= 0 ? ctx.proposed().usageVersion(index) : -1;
        if (index >= 0 && cache.valid(index, version)) {
            return cache.ranked(index);
        }
        NodeUsage usage = index >= 0 ? ctx.proposed().usage(index) : ctx.proposed().usage(node.id());
        RankedNode ranked = new RankedNode(node, index, usage);
        String exhausted = fit.fit(ranked, ctx);
        ranked.exhausted(exhausted);
        if (exhausted == null) {
            double[] scores = ranked.scoreSlots(bound.length);
            for (int i = 0; i < bound.length; i++) {
                if (nodeLocal[i]) {
                    scores[i] = bound[i] == null ? Double.NaN : bound[i].score(ranked);
                }
            }
        }
        if (index >= 0) {
            cache.put(index, version, ranked);
        }
        return ranked;
    }

    /** Adds the scores that depend on the placement or on other nodes, and averages those that did not abstain. */
    private void scoreTransient(RankedNode ranked, NodeScorer.Bound[] bound) {
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
        ranked.assignFinalScore(count == 0 ? 0 : sum / count);
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

    private boolean feasible(Node node, int nodeIndex, Scope scope, EvalContext ctx, MetricsRecorder metrics) {
        int cls = ctx.classId(nodeIndex, node);
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
        Boolean cached = verdicts == null ? null : verdicts.get(cls);
        if (Boolean.FALSE.equals(cached)) {
            metrics.filtered(node, CLASS_INELIGIBLE);
            return false;
        }
        if (cached != null) {
            return true;
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

        Scope(PlacementRequest request, ClassEligibility.Verdicts jobVerdicts, ClassEligibility.Verdicts groupVerdicts,
              List<FeasibilityCheck> transients) {
            this.request = request;
            this.jobVerdicts = jobVerdicts;
            this.groupVerdicts = groupVerdicts;
            this.transients = transients;
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
