package io.caravan.server.internal;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.caravan.api.model.AllocDeploymentStatus;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Deployment;
import io.caravan.api.model.DeploymentState;
import io.caravan.api.model.Job;
import io.caravan.scheduler.DeploymentStatusUpdate;
import io.caravan.state.StateTxn;

/**
 * Applies deployment writes: a plan's new deployment and status updates, placements and health counted into their
 * deployment, operators' and the watcher's status changes, promotions and health settings, and job stability.
 * A deployment's counters are only ever changed here, from allocations as they are written, so every replica counts
 * the same.
 */
final class DeploymentApply {
    static final String DESCRIPTION_RUNNING = "Deployment is running";
    static final String DESCRIPTION_NEEDS_PROMOTION = "Deployment is running but requires manual promotion";
    static final String DESCRIPTION_SUCCESSFUL = "Deployment completed successfully";

    private DeploymentApply() {
    }

    // ---- from the plan applier -----------------------------------------------------------------------------------

    /**
     * A plan's deployment changes, before its allocations: a new deployment is stored (each group's
     * {@code RequireProgressBy} starts now); status updates apply to deployments still active.
     */
    static void plan(Fsm.Txn txn, Command.PlanApply cmd) {
        StateTxn state = txn.state();
        long index = txn.index();
        Deployment d = cmd.deployment();
        if (d != null && state.get(NomadTables.DEPLOYMENTS, d.id()).isEmpty()) {
            Map<String, DeploymentState> groups = new LinkedHashMap<>();
            d.taskGroups().forEach((g, s) -> groups.put(g, new GroupState(s)
                    .requireProgressBy(progressFrom(s, cmd.timestampNanos())).build()));
            state.put(NomadTables.DEPLOYMENTS, new Deployment(d.id(), d.namespace(), d.jobId(), d.jobVersion(),
                    d.jobModifyIndex(), d.jobSpecModifyIndex(), d.jobCreateIndex(), d.isMultiregion(), groups,
                    d.status(), d.statusDescription(), d.evalPriority(), index, index, cmd.timestampNanos(),
                    cmd.timestampNanos()));
        }
        for (DeploymentStatusUpdate u : cmd.deploymentUpdates()) {
            state.get(NomadTables.DEPLOYMENTS, u.deploymentId()).filter(Deployment::active).ifPresent(existing ->
                    putStatus(txn, existing, u.status(), u.statusDescription(), cmd.timestampNanos()));
        }
    }

    /** A placement or in-place update joining a deployment: counted as placed (and as a canary) once. */
    static void placed(Fsm.Txn txn, Allocation before, Allocation after, long nowNanos) {
        String id = after.deploymentId();
        if (id == null || id.isEmpty() || before != null && id.equals(before.deploymentId())) {
            return;
        }
        StateTxn state = txn.state();
        Deployment d = state.get(NomadTables.DEPLOYMENTS, id).orElse(null);
        DeploymentState s = d == null ? null : d.taskGroups().get(after.taskGroup());
        if (s == null) {
            return;
        }
        GroupState g = new GroupState(s);
        g.placedAllocs++;
        if (after.deploymentStatus() != null && after.deploymentStatus().canary()) {
            g.placedCanaries.add(after.id());
        }
        putGroup(txn, d, after.taskGroup(), g.build(), nowNanos);
    }

    // ---- health ----------------------------------------------------------------------------------------------------

    /**
     * The deployment status an allocation keeps after its client's update: the client's {@code Healthy} and
     * {@code Timestamp} the first time it reports one, the server's fields ({@code Canary}) always; the deployment's
     * counters follow. Null when the allocation has none and the client sent none.
     */
    static AllocDeploymentStatus clientHealth(Fsm.Txn txn, Allocation existing, Allocation update, long nowNanos) {
        AllocDeploymentStatus stored = existing.deploymentStatus();
        AllocDeploymentStatus reported = update.deploymentStatus();
        if (reported == null || reported.healthy() == null || stored != null && stored.healthy() != null
                || existing.deploymentId() == null || existing.deploymentId().isEmpty()) {
            return stored;
        }
        AllocDeploymentStatus now = new AllocDeploymentStatus(reported.healthy(),
                reported.timestamp() == null ? Instant.ofEpochSecond(0, nowNanos) : reported.timestamp(),
                stored != null && stored.canary(), txn.index());
        countHealth(txn, existing, stored, now, nowNanos);
        return now;
    }

    /** Moves an allocation's health in its deployment's counters, and pushes the group's progress deadline. */
    private static void countHealth(Fsm.Txn txn, Allocation alloc, AllocDeploymentStatus before,
                                    AllocDeploymentStatus after, long nowNanos) {
        Deployment d = txn.state().get(NomadTables.DEPLOYMENTS, alloc.deploymentId()).orElse(null);
        DeploymentState s = d == null ? null : d.taskGroups().get(alloc.taskGroup());
        if (s == null) {
            return;
        }
        GroupState g = new GroupState(s);
        Boolean was = before == null ? null : before.healthy();
        if (Boolean.TRUE.equals(was)) {
            g.healthyAllocs--;
        } else if (Boolean.FALSE.equals(was)) {
            g.unhealthyAllocs--;
        }
        if (Boolean.TRUE.equals(after.healthy())) {
            g.healthyAllocs++;
            // Nomad's progress rule: each newly healthy allocation gives the group another progress_deadline.
            if (!s.progressDeadline().isZero() && after.timestamp() != null) {
                Instant by = after.timestamp().plus(s.progressDeadline());
                if (g.requireProgressBy == null || by.isAfter(g.requireProgressBy)) {
                    g.requireProgressBy = by;
                }
            }
        } else {
            g.unhealthyAllocs++;
        }
        putGroup(txn, d, alloc.taskGroup(), g.build(), nowNanos);
    }

    static Command.Result allocHealth(Fsm.Txn txn, Command.DeploymentAllocHealth cmd) {
        StateTxn state = txn.state();
        long index = txn.index();
        Deployment d = state.get(NomadTables.DEPLOYMENTS, cmd.deploymentId()).orElse(null);
        if (d == null) {
            return Command.Result.rejected(index, 404, "deployment not found");
        }
        if (!d.active()) {
            return Command.Result.rejected(index, 400, "can't set health of allocations for a terminal deployment");
        }
        Instant at = Instant.ofEpochSecond(0, cmd.timestampNanos());
        List<String[]> all = new ArrayList<>();
        cmd.healthy().forEach(id -> all.add(new String[] {id, "true"}));
        cmd.unhealthy().forEach(id -> all.add(new String[] {id, "false"}));
        for (String[] entry : all) {
            Allocation alloc = state.get(NomadTables.ALLOCS, entry[0]).orElse(null);
            if (alloc == null) {
                return Command.Result.rejected(index, 400, "unknown alloc \"" + entry[0] + "\"");
            }
            if (!d.id().equals(alloc.deploymentId())) {
                return Command.Result.rejected(index, 400, "allocation \"" + entry[0]
                        + "\" is not part of deployment \"" + d.id() + "\"");
            }
            AllocDeploymentStatus before = alloc.deploymentStatus();
            AllocDeploymentStatus after = new AllocDeploymentStatus(Boolean.valueOf(entry[1]), at,
                    before != null && before.canary(), index);
            if (before != null && after.healthy().equals(before.healthy())) {
                continue;
            }
            countHealth(txn, alloc, before, after, cmd.timestampNanos());
            d = state.get(NomadTables.DEPLOYMENTS, d.id()).orElseThrow();
            txn.putAlloc(alloc, alloc.toBuilder().deploymentStatus(after).modifyIndex(index)
                    .modifyTime(cmd.timestampNanos()).build());
        }
        txn.putEval(cmd.eval().withIndexes(index, index));
        return Command.Result.ok(index);
    }

    // ---- status, promotion, stability ---------------------------------------------------------------------------

    static Command.Result statusChange(Fsm.Txn txn, Command.DeploymentStatusChange cmd) {
        StateTxn state = txn.state();
        long index = txn.index();
        Deployment d = state.get(NomadTables.DEPLOYMENTS, cmd.deploymentId()).orElse(null);
        if (d == null) {
            return Command.Result.rejected(index, 404, "deployment not found");
        }
        if (!d.active()) {
            return Command.Result.rejected(index, 400, "deployment \"" + d.id() + "\" is already terminal ("
                    + d.status() + ")");
        }
        if (Deployment.STATUS_RUNNING.equals(cmd.status()) && Deployment.STATUS_PAUSED.equals(d.status())) {
            // Nomad's rule: a resumed deployment gets a whole progress_deadline again, so time paused never fails it.
            Map<String, DeploymentState> groups = new LinkedHashMap<>();
            d.taskGroups().forEach((g, s) -> groups.put(g, new GroupState(s)
                    .requireProgressBy(progressFrom(s, cmd.timestampNanos())).build()));
            d = copy(d, groups, d.status(), d.statusDescription(), index, cmd.timestampNanos());
        }
        putStatus(txn, d, cmd.status(), cmd.statusDescription(), cmd.timestampNanos());
        long jobModifyIndex = 0;
        if (cmd.revertTo() != null) {
            Command.Result registered = JobApply.register(txn, new Command.JobRegister(cmd.revertTo(), cmd.eval(),
                    false, 0));
            if (registered.errorCode() != 0) {
                return registered;
            }
            jobModifyIndex = registered.jobModifyIndex();
        } else if (cmd.eval() != null) {
            txn.putEval(cmd.eval().withIndexes(index, index));
        }
        return Command.Result.ok(index, jobModifyIndex, cmd.eval() == null ? 0 : index);
    }

    static Command.Result promotion(Fsm.Txn txn, Command.DeploymentPromotion cmd) {
        StateTxn state = txn.state();
        long index = txn.index();
        Deployment d = state.get(NomadTables.DEPLOYMENTS, cmd.deploymentId()).orElse(null);
        if (d == null) {
            return Command.Result.rejected(index, 404, "deployment not found");
        }
        if (!d.active()) {
            return Command.Result.rejected(index, 400, "can't promote terminal deployment");
        }
        Map<String, DeploymentState> groups = new LinkedHashMap<>(d.taskGroups());
        List<String> problems = new ArrayList<>();
        boolean any = false;
        for (Map.Entry<String, DeploymentState> e : d.taskGroups().entrySet()) {
            DeploymentState s = e.getValue();
            if (!cmd.all() && !cmd.groups().contains(e.getKey()) || s.desiredCanaries() == 0 || s.promoted()) {
                continue;
            }
            long healthy = s.placedCanaries().stream().map(id -> state.get(NomadTables.ALLOCS, id).orElse(null))
                    .filter(a -> a != null && a.deploymentStatus() != null
                            && Boolean.TRUE.equals(a.deploymentStatus().healthy())).count();
            if (healthy < s.desiredCanaries()) {
                problems.add("Task group \"" + e.getKey() + "\" has " + healthy + "/" + s.desiredCanaries()
                        + " healthy allocations");
                continue;
            }
            GroupState g = new GroupState(s);
            g.promoted = true;
            groups.put(e.getKey(), g.build());
            any = true;
        }
        for (String g : cmd.groups()) {
            if (!d.taskGroups().containsKey(g)) {
                problems.add("Deployment does not include task group \"" + g + "\"");
            }
        }
        if (!problems.isEmpty()) {
            return Command.Result.rejected(index, 400, String.join("; ", problems));
        }
        if (!any) {
            return Command.Result.rejected(index, 400, "no canaries to promote");
        }
        String description = DESCRIPTION_NEEDS_PROMOTION.equals(d.statusDescription())
                || d.statusDescription().startsWith(DESCRIPTION_RUNNING) ? DESCRIPTION_RUNNING : d.statusDescription();
        state.put(NomadTables.DEPLOYMENTS, copy(d, groups, d.status(), description, index, cmd.timestampNanos()));
        txn.putEval(cmd.eval().withIndexes(index, index));
        return Command.Result.ok(index, 0, index);
    }

    static Command.Result jobStability(Fsm.Txn txn, Command.JobStability cmd) {
        long index = txn.index();
        if (!setStable(txn, cmd.namespace(), cmd.jobId(), cmd.version(), cmd.stable())) {
            return Command.Result.rejected(index, 404, "job \"" + cmd.jobId() + "\" at version " + cmd.version()
                    + " not found");
        }
        return Command.Result.ok(index, 0, 0);
    }

    /**
     * Nomad 1.9's version tags: {@code VersionTag {Name, Description, TaggedTime}} on a stored version (and on the job
     * when it is that version). A name another version already carries is a 400; unsetting a name no version
     * carries is a 404.
     */
    static Command.Result jobVersionTag(Fsm.Txn txn, Command.JobVersionTag cmd) {
        StateTxn state = txn.state();
        long index = txn.index();
        String jobKey = NomadTables.key(cmd.namespace(), cmd.jobId());
        Job current = state.get(NomadTables.JOBS, jobKey).orElse(null);
        if (current == null) {
            return Command.Result.rejected(index, 404, "job \"" + cmd.jobId() + "\" not found");
        }
        List<Job> versions = state.read().prefix(NomadTables.JOB_VERSIONS, jobKey + "\0").toList();
        Job tagged = versions.stream().filter(v -> cmd.name().equals(tagName(v))).findFirst().orElse(null);
        if (cmd.unset()) {
            if (tagged == null) {
                return Command.Result.rejected(index, 404, "tag \"" + cmd.name() + "\" not found on job \""
                        + cmd.jobId() + "\"");
            }
            putVersion(txn, tagged, null);
            return Command.Result.ok(index, 0, 0);
        }
        long version = cmd.version() == null ? current.version() : cmd.version();
        Job target = versions.stream().filter(v -> v.version() == version).findFirst().orElse(null);
        if (target == null) {
            return Command.Result.rejected(index, 404, "job \"" + cmd.jobId() + "\" at version " + version
                    + " not found");
        }
        if (tagged != null && tagged.version() != version) {
            return Command.Result.rejected(index, 400, "tag \"" + cmd.name() + "\" already exists on a different "
                    + "version of job \"" + cmd.jobId() + "\"");
        }
        Map<String, Object> tag = new LinkedHashMap<>();
        tag.put("Name", cmd.name());
        tag.put("Description", cmd.description() == null ? "" : cmd.description());
        tag.put("TaggedTime", cmd.taggedTimeNanos());
        putVersion(txn, target, tag);
        return Command.Result.ok(index, 0, 0);
    }

    private static String tagName(Job v) {
        return v.versionTag() == null ? null : (String) v.versionTag().get("Name");
    }

    /** A version with its tag replaced (null: removed), mirrored on the job when it is the current version. */
    private static void putVersion(Fsm.Txn txn, Job version, Map<String, Object> tag) {
        StateTxn state = txn.state();
        long index = txn.index();
        state.put(NomadTables.JOB_VERSIONS, version.toBuilder().versionTag(tag).build());
        state.get(NomadTables.JOBS, NomadTables.key(version.namespace(), version.id()))
                .filter(j -> j.version() == version.version())
                .ifPresent(j -> state.put(NomadTables.JOBS, j.toBuilder().versionTag(tag).build()
                        .withIndexes(j.createIndex(), index, j.jobModifyIndex())));
    }

    /** Marks a stored job version (and the job, when it is that version) stable; false when there is no such version. */
    private static boolean setStable(Fsm.Txn txn, String namespace, String jobId, long version, boolean stable) {
        StateTxn state = txn.state();
        long index = txn.index();
        String versionKey = NomadTables.key(namespace, jobId) + "\0" + String.format("%020d", version);
        Job v = state.get(NomadTables.JOB_VERSIONS, versionKey).orElse(null);
        if (v == null) {
            return false;
        }
        state.put(NomadTables.JOB_VERSIONS, v.withStable(stable));
        state.get(NomadTables.JOBS, NomadTables.key(namespace, jobId)).filter(j -> j.version() == version)
                .ifPresent(j -> state.put(NomadTables.JOBS, j.withStable(stable)
                        .withIndexes(j.createIndex(), index, j.jobModifyIndex())));
        return true;
    }

    /** A purged job takes its deployments with it, as in Nomad. */
    static void deleteForJob(Fsm.Txn txn, String jobKey) {
        StateTxn state = txn.state();
        state.read().byIndex(NomadTables.DEPLOYMENTS, "job", jobKey).toList()
                .forEach(d -> state.delete(NomadTables.DEPLOYMENTS, d.id()));
    }

    // ---- helpers ---------------------------------------------------------------------------------------------------

    private static void putStatus(Fsm.Txn txn, Deployment d, String status, String description, long nowNanos) {
        txn.state().put(NomadTables.DEPLOYMENTS, copy(d, d.taskGroups(), status, description, txn.index(), nowNanos));
        if (Deployment.STATUS_SUCCESSFUL.equals(status)) {
            setStable(txn, d.namespace(), d.jobId(), d.jobVersion(), true);
        }
    }

    private static void putGroup(Fsm.Txn txn, Deployment d, String group, DeploymentState s, long nowNanos) {
        Map<String, DeploymentState> groups = new LinkedHashMap<>(d.taskGroups());
        groups.put(group, s);
        txn.state().put(NomadTables.DEPLOYMENTS, copy(d, groups, d.status(), d.statusDescription(), txn.index(),
                nowNanos));
    }

    static Deployment copy(Deployment d, Map<String, DeploymentState> groups, String status, String description,
                           long index, long nowNanos) {
        return new Deployment(d.id(), d.namespace(), d.jobId(), d.jobVersion(), d.jobModifyIndex(),
                d.jobSpecModifyIndex(), d.jobCreateIndex(), d.isMultiregion(), groups, status, description,
                d.evalPriority(), d.createIndex(), index, d.createTime(), nowNanos);
    }

    private static Instant progressFrom(DeploymentState s, long nowNanos) {
        return s.progressDeadline().isZero() ? s.requireProgressBy()
                : Instant.ofEpochSecond(0, nowNanos).plus(s.progressDeadline());
    }

    /** A group's state, changed field by field. */
    private static final class GroupState {
        final DeploymentState from;
        boolean promoted;
        Instant requireProgressBy;
        final List<String> placedCanaries;
        int placedAllocs;
        int healthyAllocs;
        int unhealthyAllocs;

        GroupState(DeploymentState s) {
            from = s;
            promoted = s.promoted();
            requireProgressBy = s.requireProgressBy();
            placedCanaries = new ArrayList<>(s.placedCanaries());
            placedAllocs = s.placedAllocs();
            healthyAllocs = s.healthyAllocs();
            unhealthyAllocs = s.unhealthyAllocs();
        }

        GroupState requireProgressBy(Instant at) {
            requireProgressBy = at;
            return this;
        }

        DeploymentState build() {
            return new DeploymentState(from.autoRevert(), from.autoPromote(), from.progressDeadline(),
                    requireProgressBy, promoted, placedCanaries, from.desiredCanaries(), from.desiredTotal(),
                    placedAllocs, Math.max(0, healthyAllocs), Math.max(0, unhealthyAllocs));
        }
    }
}
