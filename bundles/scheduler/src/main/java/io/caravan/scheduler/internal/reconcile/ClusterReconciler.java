package io.caravan.scheduler.internal.reconcile;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.Deployment;
import io.caravan.api.model.DeploymentState;
import io.caravan.api.model.DisconnectStrategy;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.api.model.Node;
import io.caravan.api.model.TaskGroup;
import io.caravan.api.model.UpdateStrategy;
import io.caravan.scheduler.DeploymentStatusUpdate;
import io.caravan.scheduler.PlanAnnotations.DesiredUpdates;
import io.caravan.scheduler.internal.AllocBuilder;
import io.caravan.scheduler.internal.EvalBuilder;

/**
 * The reconciler of service and batch jobs (Nomad's cluster reconciler without deployments and canaries). Per task group it sorts allocations into buckets, trims the surplus, and asks for
 * replacements and new placements:
 * <ul>
 * <li>allocations of a stopped or purged job, of a removed group, or of a group scaled to 0 are stopped;</li>
 * <li>allocations on down or gone nodes are stopped as {@code lost} and replaced under the same name;</li>
 * <li>allocations on disconnected nodes of a group with {@code disconnect.lost_after} turn {@code unknown} (with a
 *     follow-up eval at the window's end) and are replaced unless {@code replace = false}; past the window they are
 *     lost; when the node is back and its client has reported, {@code reconcile} keeps the original or its
 *     replacement ({@link Reconnects});</li>
 * <li>allocations marked {@code DesiredTransition.Migrate} are stopped and replaced;</li>
 * <li>failed allocations are rescheduled now, later (a follow-up eval with {@code WaitUntil}), or not at all, by
 *     their group's reschedule policy; a failed allocation that may not be rescheduled still holds its slot;</li>
 * <li>a batch allocation that finished successfully holds its slot and is not run again (until the job
 *     changes);</li>
 * <li>running allocations of an older job version are updated in place or destructively ({@link JobChanges});</li>
 * <li>surplus allocations are stopped highest index first; missing ones get the lowest free indexes.</li>
 * </ul>
 *
 * <p>A service group with an {@code update} block ({@code max_parallel > 0}) changes version through a deployment
 * ({@link Rollout}): destructive updates first place {@code canary} canaries beside the old allocations and wait for
 * promotion, then replace at most {@code max_parallel} at a time, counting new allocations not yet healthy against
 * the limit; an unhealthy one stops the roll. A paused or failed deployment places nothing new. A newer job version
 * or a stopped job cancels the running deployment; once every group is promoted and healthy it is successful.
 */
public final class ClusterReconciler {
    /** Nomad's {@code rescheduleWindowSize}: a reschedule due this soon happens now. */
    static final Duration RESCHEDULE_WINDOW = Duration.ofSeconds(1);
    /** Nomad's {@code batchedFailedAllocWindowSize}: failures this close share one follow-up eval. */
    static final Duration FOLLOW_UP_BATCH_WINDOW = Duration.ofSeconds(5);
    static final String FOLLOW_UP_DESCRIPTION = "created for delayed rescheduling";
    static final String DISCONNECT_FOLLOW_UP_DESCRIPTION = "created for delayed disconnect timeout";

    private final ReconcileInput in;
    private final List<Placement> placements = new ArrayList<>();
    private final List<AllocStop> stops = new ArrayList<>();
    private final List<Allocation> inPlace = new ArrayList<>();
    private final List<Allocation> attributeUpdates = new ArrayList<>();
    private final List<Evaluation> followUps = new ArrayList<>();
    private final Map<String, GroupUpdates> updates = new LinkedHashMap<>();
    /** Reconnected allocations kept, whose slot carries the reconnect record. */
    private final Set<String> reconnects = new HashSet<>();

    static final String DESCRIPTION_RUNNING = "Deployment is running";
    static final String DESCRIPTION_NEEDS_PROMOTION = "Deployment is running but requires manual promotion";
    static final String DESCRIPTION_AUTO_PROMOTION = "Deployment is running pending automatic promotion";
    static final String DESCRIPTION_SUCCESSFUL = "Deployment completed successfully";
    static final String DESCRIPTION_STOPPED_JOB = "Cancelled because job is stopped";
    static final String DESCRIPTION_NEWER_JOB = "Cancelled due to newer version of job";

    /** The deployment of this job version, if it has one (after cancelling one of an older version). */
    private Deployment deployment;
    /** Group states of a deployment this pass creates. */
    private final Map<String, DeploymentState> createdGroups = new LinkedHashMap<>();
    private final List<DeploymentStatusUpdate> deploymentUpdates = new ArrayList<>();
    private boolean deploymentPaused;
    private boolean deploymentFailed;
    /** Whether every rolling group has nothing left to do and is healthy (and promoted). */
    private boolean deploymentComplete = true;
    private boolean anyRollout;
    /** The group being computed, when it rolls through a deployment. */
    private Rollout rollout;

    private ClusterReconciler(ReconcileInput in) {
        this.in = in;
    }

    public static ReconcileResult reconcile(ReconcileInput in) {
        return new ClusterReconciler(in).compute();
    }

    /** Where an allocation stands before the count is applied. */
    private enum Bucket {
        // Declared in the order surplus is removed: lost first (then the unreachable), live last.
        LOST, DISCONNECTED, UNKNOWN, RESCHEDULE_NOW, HOLDS_SLOT, MIGRATE, LIVE
    }

    private record Slot(Allocation alloc, Bucket bucket, long rescheduleAt) {
        int index() {
            return AllocNames.index(alloc.name());
        }
    }

    /** An allocation waiting for a point in time (a delayed reschedule, the end of a disconnect window). */
    private record Waiting(Allocation alloc, long atNanos) {
    }

    private ReconcileResult compute() {
        cancelUnneededDeployments();
        Map<String, List<Allocation>> groups = Allocs.byGroup(in.job(), in.allocs());
        for (Map.Entry<String, List<Allocation>> e : groups.entrySet()) {
            GroupUpdates counts = updates.computeIfAbsent(e.getKey(), g -> new GroupUpdates());
            rollout = null;
            TaskGroup tg = in.jobStopped() ? null : in.job().lookupTaskGroup(e.getKey());
            if (tg == null || tg.count() == null || tg.count() == 0) {
                stopAll(e.getValue(), tg, counts);
            } else {
                computeGroup(tg, e.getValue(), counts);
            }
        }
        Map<String, DesiredUpdates> desired = new LinkedHashMap<>();
        updates.forEach((g, c) -> desired.put(g, c.toDesiredUpdates()));
        Deployment created = createdDeployment();
        if (deployment != null && Deployment.STATUS_RUNNING.equals(deployment.status()) && anyRollout
                && deploymentComplete) {
            deploymentUpdates.add(new DeploymentStatusUpdate(deployment.id(), Deployment.STATUS_SUCCESSFUL,
                    DESCRIPTION_SUCCESSFUL));
        }
        String joins = created != null ? created.id()
                : deployment != null && deployment.active() ? deployment.id() : null;
        return new ReconcileResult(placements, stops, inPlace, attributeUpdates, followUps, desired, created,
                deploymentUpdates, joins);
    }

    /**
     * Nomad's {@code cancelUnneededDeployments}: a stopped job cancels its active deployment; one of an older job
     * version is cancelled and no longer current; a successful one is done with.
     */
    private void cancelUnneededDeployments() {
        Deployment d = in.deployment();
        if (in.jobStopped()) {
            if (d != null && d.active()) {
                deploymentUpdates.add(new DeploymentStatusUpdate(d.id(), Deployment.STATUS_CANCELLED,
                        DESCRIPTION_STOPPED_JOB));
            }
            return;
        }
        if (d == null) {
            return;
        }
        if (d.jobCreateIndex() != createIndex(in.job()) || d.jobVersion() != version(in.job())) {
            if (d.active()) {
                deploymentUpdates.add(new DeploymentStatusUpdate(d.id(), Deployment.STATUS_CANCELLED,
                        DESCRIPTION_NEWER_JOB));
            }
            return;
        }
        if (Deployment.STATUS_SUCCESSFUL.equals(d.status())) {
            return;
        }
        deployment = d;
        deploymentPaused = Deployment.STATUS_PAUSED.equals(d.status()) || Deployment.STATUS_PENDING.equals(d.status());
        deploymentFailed = Deployment.STATUS_FAILED.equals(d.status());
    }

    private static long version(Job job) {
        return job.version() == null ? 0 : job.version();
    }

    private static long createIndex(Job job) {
        return job.createIndex() == null ? 0 : job.createIndex();
    }

    /** The deployment this pass creates, when some group starts rolling and the version has none yet. */
    private Deployment createdDeployment() {
        if (createdGroups.isEmpty() || deployment != null) {
            return null;
        }
        Job job = in.job();
        boolean needsPromotion = false;
        boolean autoPromote = true;
        for (DeploymentState s : createdGroups.values()) {
            if (s.desiredCanaries() > 0) {
                needsPromotion = true;
                autoPromote &= s.autoPromote();
            }
        }
        String description = !needsPromotion ? DESCRIPTION_RUNNING
                : autoPromote ? DESCRIPTION_AUTO_PROMOTION : DESCRIPTION_NEEDS_PROMOTION;
        long jobModifyIndex = job.jobModifyIndex() == null ? 0 : job.jobModifyIndex();
        return new Deployment(in.ids().get(), job.namespace(), job.id(), version(job), jobModifyIndex,
                jobModifyIndex, createIndex(job), false, createdGroups, Deployment.STATUS_RUNNING, description,
                in.eval() == null ? job.priority() : in.eval().priority(), 0, 0, in.nowNanos(), in.nowNanos());
    }

    /**
     * A rolling group's deployment state while it is computed: the existing one's (promotion, canaries) or a new
     * one's, the live canaries of the current deployment, and the destructive updates held back for the limit.
     */
    private final class Rollout {
        final UpdateStrategy strategy;
        final DeploymentState existing;
        final boolean promoted;
        int desiredCanaries;
        final List<Allocation> canaries = new ArrayList<>();
        final List<Allocation> destructive = new ArrayList<>();
        int inPlace;

        Rollout(TaskGroup tg, UpdateStrategy strategy) {
            this.strategy = strategy;
            this.existing = deployment == null ? null : deployment.taskGroups().get(tg.name());
            this.promoted = existing != null && existing.promoted();
            this.desiredCanaries = existing == null ? 0 : existing.desiredCanaries();
        }

        boolean canarying() {
            return desiredCanaries > 0 && !promoted;
        }

        /** Whether placements may be made (Nomad's {@code deploymentPlaceReady}). */
        boolean placeReady() {
            return !deploymentPaused && !deploymentFailed && !canarying();
        }

        int canary() {
            return strategy.canary() == null ? 0 : strategy.canary();
        }

        /**
         * Nomad's {@code computeLimit}: {@code max_parallel} less the current deployment's allocations not yet
         * healthy; nothing while paused, failed, canarying, or once one of them is unhealthy.
         */
        int limit(List<Slot> kept) {
            if (deploymentPaused || deploymentFailed || canarying()) {
                return 0;
            }
            int limit = strategy.maxParallel();
            if (deployment != null) {
                for (Slot slot : kept) {
                    Allocation a = slot.alloc();
                    if (a.terminal() || !deployment.id().equals(a.deploymentId())) {
                        continue;
                    }
                    Boolean healthy = a.deploymentStatus() == null ? null : a.deploymentStatus().healthy();
                    if (Boolean.FALSE.equals(healthy)) {
                        return 0;
                    }
                    if (healthy == null) {
                        limit--;
                    }
                }
            }
            return Math.max(0, limit);
        }
    }

    /**
     * Sorts out canaries before the slots are counted: the current deployment's are kept aside while it waits for
     * promotion (the old allocations keep the count) and join the slots once promoted, when the old allocations
     * sharing their names stop; unpromoted canaries of a failed or earlier deployment stop. Returns the allocations
     * left to classify.
     */
    private List<Allocation> sortCanaries(List<Allocation> allocs, Rollout r, GroupUpdates counts) {
        Deployment previous = in.deployment();
        List<Allocation> rest = new ArrayList<>();
        for (Allocation a : allocs) {
            boolean canary = a.deploymentStatus() != null && a.deploymentStatus().canary();
            if (!canary || a.terminal()) {
                rest.add(a);
                continue;
            }
            boolean current = deployment != null && deployment.id().equals(a.deploymentId());
            DeploymentState owner = current ? r.existing : previous != null && previous.id().equals(a.deploymentId())
                    ? previous.taskGroups().get(a.taskGroup()) : null;
            boolean unpromoted = owner != null && !owner.promoted();
            if (unpromoted && (!current || deploymentFailed)) {
                stops.add(AllocStop.notNeeded(a));
                counts.stop++;
            } else if (current) {
                r.canaries.add(a);
                if (!r.canarying()) {
                    rest.add(a);
                }
            } else {
                rest.add(a);
            }
        }
        if (r.canarying() || r.canaries.isEmpty()) {
            return rest;
        }
        Set<String> canaryNames = new HashSet<>();
        r.canaries.forEach(c -> canaryNames.add(c.name()));
        List<Allocation> kept = new ArrayList<>();
        for (Allocation a : rest) {
            if (!a.terminal() && !r.canaries.contains(a) && canaryNames.contains(a.name()) && olderVersion(a)) {
                stops.add(AllocStop.notNeeded(a)); // a promoted canary took its place
                counts.stop++;
            } else {
                kept.add(a);
            }
        }
        return kept;
    }

    /**
     * After the slots: canaries while the version is new to the group, missing allocations if the deployment lets
     * placements happen, then as many destructive updates as the limit allows; records the group's deployment state
     * when a new deployment starts, and whether the group is done.
     */
    private void roll(TaskGroup tg, Rollout r, List<Allocation> allocs, List<Slot> kept, GroupUpdates counts,
                      int placedBefore) {
        int canary = r.canary();
        boolean requireCanary = !r.destructive.isEmpty() && canary > 0 && r.canaries.size() < canary && !r.promoted;
        if (requireCanary) {
            r.desiredCanaries = canary;
        }
        if (requireCanary && !deploymentPaused && !deploymentFailed) {
            int n = Math.min(canary - r.canaries.size(), r.destructive.size());
            Set<String> used = new HashSet<>();
            r.canaries.forEach(c -> used.add(c.name()));
            List<Allocation> byName = new ArrayList<>(r.destructive);
            byName.sort(Allocs.BY_NAME);
            for (Allocation a : byName) {
                if (n == 0) {
                    break;
                }
                if (used.add(a.name())) {
                    placements.add(Placement.canary(a.name(), tg));
                    counts.canary++;
                    n--;
                }
            }
        }
        int missing = Math.max(0, tg.count() - kept.size());
        if (r.placeReady()) {
            placeMissing(tg, kept, counts); // otherwise they wait for the deployment (Nomad's deploymentPlaceReady)
        }
        int placedHere = 0;
        for (int i = placedBefore; i < placements.size(); i++) {
            if (!placements.get(i).canary()) {
                placedHere++;
            }
        }
        int limit = r.limit(kept);
        limit -= Math.min(placedHere, limit);
        List<Allocation> destructive = new ArrayList<>(r.destructive);
        destructive.sort(Allocs.BY_NAME);
        for (int i = 0; i < destructive.size(); i++) {
            if (i < limit) {
                Allocation alloc = destructive.get(i);
                placements.add(replacement(alloc, tg, Placement.Kind.DESTRUCTIVE,
                        new AllocStop(alloc, AllocStop.UPDATING, null)));
                counts.destructiveUpdate++;
            } else {
                counts.ignore++;
            }
        }

        boolean hadRunning = allocs.stream().anyMatch(a -> !olderVersion(a));
        boolean updatingSpec = !r.destructive.isEmpty() || r.inPlace > 0;
        int desiredTotal = r.destructive.size() + r.inPlace + (r.placeReady() ? placedHere : missing);
        if (r.existing == null && desiredTotal > 0 && (!hadRunning || updatingSpec)) {
            createdGroups.put(tg.name(), new DeploymentState(Boolean.TRUE.equals(r.strategy.autoRevert()),
                    Boolean.TRUE.equals(r.strategy.autoPromote()), r.strategy.progressDeadline(), null, false,
                    List.of(), r.desiredCanaries, desiredTotal, 0, 0, 0));
        }
        boolean complete = r.destructive.isEmpty() && r.inPlace == 0 && placedHere == 0 && missing == 0
                && !requireCanary;
        DeploymentState ds = deployment == null ? null : deployment.taskGroups().get(tg.name());
        if (complete && ds != null && (ds.healthyAllocs() < Math.max(ds.desiredTotal(), ds.desiredCanaries())
                || ds.desiredCanaries() > 0 && !ds.promoted())) {
            complete = false;
        }
        deploymentComplete &= complete;
    }

    private void stopAll(List<Allocation> allocs, TaskGroup tg, GroupUpdates counts) {
        for (Allocation alloc : allocs) {
            if (alloc.terminal()) {
                continue;
            }
            boolean lost = Allocs.onLostNode(alloc, in.nodes().get(alloc.nodeId()), tg);
            stops.add(lost ? AllocStop.lost(alloc) : AllocStop.notNeeded(alloc));
            counts.stop++;
        }
    }

    private void computeGroup(TaskGroup tg, List<Allocation> allocs, GroupUpdates counts) {
        UpdateStrategy strategy = in.batch() ? null : UpdateStrategies.rolling(in.job(), tg);
        Rollout r = strategy == null ? null : new Rollout(tg, strategy);
        rollout = r;
        anyRollout |= r != null;
        List<Allocation> all = allocs;
        if (r != null) {
            allocs = sortCanaries(allocs, r, counts);
        }
        int placedBefore = placements.size();
        Disconnects disconnects = new Disconnects(tg, allocs);
        List<Slot> slots = new ArrayList<>();
        for (Allocation alloc : allocs) {
            Slot slot = classify(alloc, tg, counts, disconnects);
            if (slot != null) {
                slots.add(slot);
            }
        }
        List<Slot> kept = trimSurplus(slots, tg.count(), counts);
        List<Waiting> later = new ArrayList<>();
        for (Slot slot : kept) {
            act(slot, tg, counts, later);
        }
        if (r != null) {
            roll(tg, r, all, kept, counts, placedBefore);
        } else {
            placeMissing(tg, kept, counts);
        }
        createFollowUps(later, Evaluation.TRIGGER_RETRY_FAILED_ALLOC, FOLLOW_UP_DESCRIPTION, false);
        createFollowUps(disconnects.newlyUnknown, Evaluation.TRIGGER_MAX_DISCONNECT_TIMEOUT,
                DISCONNECT_FOLLOW_UP_DESCRIPTION, true);
    }

    /**
     * The group's allocations on disconnected nodes (Nomad's {@code disconnect} block, when the group sets
     * {@code lost_after}): within the window they become {@code unknown} and, unless {@code replace = false}, get a
     * replacement; past it they are lost. An allocation whose last recorded client status is {@code unknown} and
     * whose node is back is <em>reconnecting</em>: until its client reports, it waits as it did while disconnected;
     * once it has, the group's {@code reconcile} choice keeps it or its replacement and stops the other, and a kept
     * original records its reconnect (a new {@code AllocStates} entry), so it is never taken for a steady state.
     */
    private final class Disconnects {
        final Duration window;
        final boolean replace;
        /** IDs of allocations that live replacements point back to. */
        final Set<String> replaced = new HashSet<>();
        /** Reconnected originals kept, by ID, with their reconnect recorded. */
        final Map<String, Allocation> kept = new HashMap<>();
        /** Reconnected originals or their replacements that lost to the other. */
        final Set<String> dropped = new HashSet<>();
        final List<Waiting> newlyUnknown = new ArrayList<>();

        Disconnects(TaskGroup tg, List<Allocation> allocs) {
            window = tg.lostAfter();
            replace = tg.disconnect() == null || !Boolean.FALSE.equals(tg.disconnect().replace());
            Map<String, Allocation> replacements = new HashMap<>();
            for (Allocation a : allocs) {
                if (!a.terminal() && a.previousAllocation() != null && !a.previousAllocation().isEmpty()) {
                    replaced.add(a.previousAllocation());
                    replacements.put(a.previousAllocation(), a);
                }
            }
            String mode = tg.disconnect() == null || tg.disconnect().reconcile() == null
                    ? DisconnectStrategy.RECONCILE_BEST_SCORE : tg.disconnect().reconcile();
            for (Allocation a : allocs) {
                if (a.terminal() || !reportedAfterReconnect(a)) {
                    continue;
                }
                Allocation replacement = replacements.get(a.id());
                Allocation winner = replacement == null ? a : Reconnects.pick(mode, a, replacement);
                if (winner == a) {
                    kept.put(a.id(), AllocBuilder.from(a).recordClientStatus(a.clientStatus(), in.nowNanos())
                            .build());
                    if (replacement != null) {
                        dropped.add(replacement.id());
                    }
                } else {
                    dropped.add(a.id());
                }
            }
        }

        /** Back from a disconnect and reported by its client since: the reconnect is to be reconciled now. */
        private boolean reportedAfterReconnect(Allocation a) {
            Node node = in.nodes().get(a.nodeId());
            return a.needsToReconnect() && !Allocation.CLIENT_UNKNOWN.equals(a.clientStatus()) && node != null
                    && !Node.STATUS_DISCONNECTED.equals(node.status()) && !Node.STATUS_DOWN.equals(node.status());
        }

        /** On a disconnected node, or back but not yet reported by its client: it waits within the window. */
        boolean waiting(Allocation alloc, Node node) {
            if (window == null || node == null) {
                return false;
            }
            return Node.STATUS_DISCONNECTED.equals(node.status())
                    || alloc.needsToReconnect() && Allocation.CLIENT_UNKNOWN.equals(alloc.clientStatus())
                    && !Node.STATUS_DOWN.equals(node.status());
        }

        /** The bucket of a waiting allocation, or null when its replacement holds the slot. */
        Slot classify(Allocation alloc, GroupUpdates counts) {
            boolean unknown = Allocation.CLIENT_UNKNOWN.equals(alloc.clientStatus());
            long since = unknown && alloc.lastUnknownNanos() >= 0 ? alloc.lastUnknownNanos() : in.nowNanos();
            long expiry = since + window.toNanos();
            if (in.nowNanos() >= expiry) {
                return new Slot(alloc, Bucket.LOST, 0);
            }
            if (!unknown) {
                newlyUnknown.add(new Waiting(alloc, expiry));
                counts.disconnect++;
            }
            if (!replace) {
                return new Slot(alloc, Bucket.UNKNOWN, 0); // waits for its node, holding its slot
            }
            return replaced.contains(alloc.id()) ? null : new Slot(alloc, Bucket.DISCONNECTED, 0);
        }
    }

    /** Puts an allocation in its bucket, or returns null when it no longer matters. */
    private Slot classify(Allocation alloc, TaskGroup tg, GroupUpdates counts, Disconnects disconnects) {
        if (alloc.terminal() && alloc.nextAllocation() != null && !alloc.nextAllocation().isEmpty()) {
            return null; // already replaced
        }
        if (!alloc.terminal()) {
            Node node = in.nodes().get(alloc.nodeId());
            if (disconnects.waiting(alloc, node)) {
                return disconnects.classify(alloc, counts);
            }
            if (Allocs.onLostNode(alloc, node, tg)) {
                return new Slot(alloc, Bucket.LOST, 0);
            }
            if (disconnects.dropped.contains(alloc.id())) {
                stops.add(new AllocStop(alloc, AllocStop.RECONNECT_LOST, null)); // the other one is kept
                counts.stop++;
                return null;
            }
            Allocation reconnected = disconnects.kept.get(alloc.id());
            if (reconnected != null) {
                counts.reconnect++;
                reconnects.add(alloc.id());
                alloc = reconnected;
            }
            return new Slot(alloc, Allocs.migrateRequested(alloc) ? Bucket.MIGRATE : Bucket.LIVE, 0);
        }
        if (in.batch() && olderVersion(alloc)) {
            counts.ignore++; // a finished batch run of an old version: the new version runs afresh
            return null;
        }
        if (!failedAndWanted(alloc)) {
            // Batch work that finished successfully keeps its slot; everything else terminal is history.
            boolean holds = in.batch() && (Allocation.DESIRED_STOP.equals(alloc.desiredStatus())
                    ? Allocs.ranSuccessfully(alloc)
                    : !Allocation.DESIRED_EVICT.equals(alloc.desiredStatus()));
            return holds ? new Slot(alloc, Bucket.HOLDS_SLOT, 0) : null;
        }
        return rescheduleSlot(alloc);
    }

    private static boolean failedAndWanted(Allocation alloc) {
        return Allocation.CLIENT_FAILED.equals(alloc.clientStatus())
                && !Allocation.DESIRED_STOP.equals(alloc.desiredStatus())
                && !Allocation.DESIRED_EVICT.equals(alloc.desiredStatus());
    }

    /** Nomad's {@code updateByReschedulable}. */
    private Slot rescheduleSlot(Allocation alloc) {
        if (Allocs.forceReschedule(alloc)) {
            return new Slot(alloc, Bucket.RESCHEDULE_NOW, 0);
        }
        Reschedule.Eligibility when = Reschedule.nextRescheduleTime(alloc);
        if (when.eligible()) {
            boolean followUpDue = in.eval() != null && in.eval().id().equals(alloc.followupEvalId());
            if (followUpDue || when.timeNanos() - in.nowNanos() <= RESCHEDULE_WINDOW.toNanos()) {
                return new Slot(alloc, Bucket.RESCHEDULE_NOW, 0);
            }
            if (alloc.followupEvalId() == null || alloc.followupEvalId().isEmpty()) {
                return new Slot(alloc, Bucket.HOLDS_SLOT, when.timeNanos());
            }
        }
        return new Slot(alloc, Bucket.HOLDS_SLOT, 0);
    }

    private boolean olderVersion(Allocation alloc) {
        return alloc.job() == null || !JobChanges.sameVersion(alloc.job(), in.job());
    }

    /** Drops the surplus over {@code count}: lost before failed before live, highest index first. */
    private List<Slot> trimSurplus(List<Slot> slots, int count, GroupUpdates counts) {
        int surplus = slots.size() - count;
        if (surplus <= 0) {
            return slots;
        }
        List<Slot> order = new ArrayList<>(slots);
        order.sort(Comparator.comparingInt((Slot s) -> removalRank(s.bucket()))
                .thenComparing(Comparator.comparingInt(Slot::index).reversed()));
        List<Slot> removed = order.subList(0, surplus);
        for (Slot slot : removed) {
            switch (slot.bucket()) {
                case LOST:
                    stops.add(AllocStop.lost(slot.alloc()));
                    counts.stop++;
                    break;
                case DISCONNECTED:
                case UNKNOWN:
                case MIGRATE:
                case LIVE:
                    stops.add(AllocStop.notNeeded(slot.alloc()));
                    counts.stop++;
                    break;
                default:
                    counts.ignore++; // terminal already; it simply stops counting
            }
        }
        List<Slot> kept = new ArrayList<>(slots);
        kept.removeAll(removed);
        return kept;
    }

    private static int removalRank(Bucket bucket) {
        return bucket == Bucket.LIVE ? Bucket.MIGRATE.ordinal() : bucket.ordinal();
    }

    private void act(Slot slot, TaskGroup tg, GroupUpdates counts, List<Waiting> later) {
        Allocation alloc = slot.alloc();
        switch (slot.bucket()) {
            case LOST:
                stops.add(AllocStop.lost(alloc));
                counts.stop++;
                placements.add(replacement(alloc, tg, Placement.Kind.LOST, null));
                counts.place++;
                break;
            case DISCONNECTED:
                placements.add(replacement(alloc, tg, Placement.Kind.DISCONNECTED, null));
                counts.place++;
                break;
            case UNKNOWN:
                counts.ignore++;
                break;
            case MIGRATE:
                stops.add(new AllocStop(alloc, AllocStop.MIGRATING, null));
                placements.add(replacement(alloc, tg, Placement.Kind.MIGRATE, null));
                counts.migrate++;
                break;
            case RESCHEDULE_NOW:
                placements.add(replacement(alloc, tg, Placement.Kind.RESCHEDULE,
                        new AllocStop(alloc, AllocStop.RESCHEDULED, null)));
                counts.place++;
                counts.stop++;
                counts.rescheduleNow++;
                break;
            case HOLDS_SLOT:
                if (!in.batch() && olderVersion(alloc)) {
                    // A failed service allocation of an old version: the new version replaces it.
                    destructive(alloc, tg, counts);
                } else {
                    counts.ignore++;
                    if (slot.rescheduleAt() > 0) {
                        later.add(new Waiting(alloc, slot.rescheduleAt()));
                        counts.rescheduleLater++;
                    }
                }
                break;
            default:
                update(alloc, tg, counts);
        }
    }

    private void update(Allocation alloc, TaskGroup tg, GroupUpdates counts) {
        switch (JobChanges.classify(alloc.job(), in.job(), tg.name())) {
            case IGNORE:
                counts.ignore++;
                if (reconnects.contains(alloc.id())) {
                    attributeUpdates.add(alloc); // records the reconnect
                }
                break;
            case IN_PLACE:
                inPlace.add(AllocBuilder.from(alloc).job(in.job()).evalId(evalId()).modifyTime(in.nowNanos()).build());
                counts.inPlaceUpdate++;
                if (rollout != null) {
                    rollout.inPlace++;
                }
                break;
            default:
                destructive(alloc, tg, counts);
        }
    }

    private void destructive(Allocation alloc, TaskGroup tg, GroupUpdates counts) {
        if (rollout != null) {
            rollout.destructive.add(alloc); // the deployment decides how many now (roll)
            return;
        }
        placements.add(replacement(alloc, tg, Placement.Kind.DESTRUCTIVE,
                new AllocStop(alloc, AllocStop.UPDATING, null)));
        counts.destructiveUpdate++;
    }

    private static Placement replacement(Allocation prev, TaskGroup tg, Placement.Kind kind, AllocStop stop) {
        return new Placement(prev.name(), tg, kind, prev, stop, null);
    }

    private void placeMissing(TaskGroup tg, List<Slot> kept, GroupUpdates counts) {
        int missing = tg.count() - kept.size();
        if (missing <= 0) {
            return;
        }
        BitSet used = new BitSet();
        for (Slot slot : kept) {
            if (slot.index() >= 0) {
                used.set(slot.index());
            }
        }
        int index = 0;
        for (int i = 0; i < missing; i++) {
            index = used.nextClearBit(index);
            placements.add(Placement.fresh(AllocNames.name(in.job().id(), tg.name(), index), tg));
            used.set(index);
            counts.place++;
        }
    }

    /**
     * One delayed eval per window of waiting times ({@code WaitUntil} = the window's first time); each waiting
     * allocation records its eval's ID and, for a disconnect, its new {@code unknown} client status.
     */
    private void createFollowUps(List<Waiting> waiting, String trigger, String description, boolean markUnknown) {
        waiting.sort(Comparator.comparingLong(Waiting::atNanos));
        Evaluation current = null;
        long windowStart = 0;
        for (Waiting w : waiting) {
            if (current == null || w.atNanos() - windowStart >= FOLLOW_UP_BATCH_WINDOW.toNanos()) {
                windowStart = w.atNanos();
                current = EvalBuilder.followUp(in.eval(), in.job(), in.ids().get(), trigger,
                                Evaluation.STATUS_PENDING, description, in.nowNanos())
                        .waitUntil(Instant.ofEpochSecond(0, windowStart)).build();
                followUps.add(current);
            }
            AllocBuilder update = AllocBuilder.from(w.alloc()).followupEvalId(current.id()).modifyTime(in.nowNanos());
            if (markUnknown) {
                update.serverClientStatus(Allocation.CLIENT_UNKNOWN, in.nowNanos());
            }
            attributeUpdates.add(update.build());
        }
    }

    private String evalId() {
        return in.eval() == null ? "" : in.eval().id();
    }
}
