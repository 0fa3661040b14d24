package io.caravan.server.internal;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.caravan.api.GoDuration;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Deployment;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.api.model.Node;
import io.caravan.state.StateSnapshot;
import io.caravan.state.StateStore;
import io.caravan.state.StateTxn;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Nomad's core scheduler: garbage collection of what the cluster no longer needs, chosen from a snapshot
 * ({@link #plan}) and deleted through the Raft log in batches of at most {@link #BATCH} objects
 * ({@link Command.GcDelete}). What goes, each past its threshold (all thresholds are ignored by a forced GC):
 * <ul>
 * <li>dead jobs Nomad deems collectable (stopped ones; batch and sysbatch jobs that finished; periodic and
 * parameterized parents only once stopped) with no active deployment, whose evaluations and allocations are all
 * collectable too — the job is purged with them;</li>
 * <li>terminal evaluations of other jobs whose allocations are all terminal, with those allocations; a batch
 * job's evaluations, unless it was stopped, wait {@code batch_eval_gc_threshold} and only its allocations of older
 * job versions go, so a finished batch run is not placed again;</li>
 * <li>terminal deployments no running allocation belongs to;</li>
 * <li>job versions beyond the tracked number (Nomad's {@code JobTrackedVersions}, 6), never the current version
 * nor the latest stable one;</li>
 * <li>down nodes without running allocations.</li>
 * </ul>
 */
final class CoreGc {
    private static final Logger LOG = LoggerFactory.getLogger(CoreGc.class);
    /** Objects per Raft entry: each is an ID (or a job's name), so an entry stays far below the log's limit. */
    static final int BATCH = 1_000;
    /** Nomad's {@code JobTrackedVersions}. */
    static final int TRACKED_VERSIONS = 6;

    /** The server block's GC settings (PID {@code io.caravan.server}); Nomad's names and defaults. */
    @interface Config {
        String job_gc_interval() default "5m";

        String job_gc_threshold() default "4h";

        String eval_gc_threshold() default "1h";

        String batch_eval_gc_threshold() default "24h";

        String deployment_gc_threshold() default "1h";

        String node_gc_threshold() default "24h";

        /** 0: Nomad's default ({@link #TRACKED_VERSIONS}). */
        int job_tracked_versions() default 0;
    }

    /** How old each kind of object must be to go; {@link #FORCE} ignores age (Nomad's forced GC). */
    record Thresholds(Duration job, Duration eval, Duration batchEval, Duration deployment, Duration node,
                      int trackedVersions) {
        static final Thresholds FORCE = new Thresholds(Duration.ZERO, Duration.ZERO, Duration.ZERO, Duration.ZERO,
                Duration.ZERO, TRACKED_VERSIONS);

        static Thresholds of(Config c) {
            return new Thresholds(GoDuration.parse(c.job_gc_threshold()), GoDuration.parse(c.eval_gc_threshold()),
                    GoDuration.parse(c.batch_eval_gc_threshold()), GoDuration.parse(c.deployment_gc_threshold()),
                    GoDuration.parse(c.node_gc_threshold()),
                    c.job_tracked_versions() > 0 ? c.job_tracked_versions() : TRACKED_VERSIONS);
        }

        Thresholds forced() {
            return new Thresholds(Duration.ZERO, Duration.ZERO, Duration.ZERO, Duration.ZERO, Duration.ZERO,
                    trackedVersions);
        }
    }

    private final StateStore store;
    private final RaftWrites writes;
    private final Clock clock;
    /** A reload may change them; the next pass uses the new ones. */
    private volatile Thresholds thresholds;
    private final GcPass pass = new GcPass(LOG, "garbage");

    CoreGc(StateStore store, RaftWrites writes, Clock clock, Thresholds thresholds) {
        this.store = store;
        this.writes = writes;
        this.clock = clock;
        this.thresholds = thresholds;
    }

    /** A reload's thresholds, for the passes that follow. */
    void thresholds(Thresholds next) {
        this.thresholds = next;
    }

    /** The timer's task: one pass unless one is running; never throws (a failure is logged, retried next time). */
    CompletionStage<Integer> run() {
        return pass.run(this::collect);
    }

    /**
     * One pass over a snapshot: every batch written in turn; completes with how many objects were deleted. The scan
     * runs on the common pool, never on the caller's thread (the leader's timer thread also runs heartbeats).
     */
    CompletionStage<Integer> collect() {
        return CompletableFuture.supplyAsync(() -> plan(store.snapshot(), clock.millis() * 1_000_000L, thresholds)
                .batches()).thenCompose(batches -> {
                    CompletionStage<Integer> done = CompletableFuture.completedFuture(0);
                    for (Command.GcDelete batch : batches) {
                        done = done.thenCompose(n -> writes.submit(batch).thenApply(r -> n + size(batch)));
                    }
                    return done;
                });
    }

    static int size(Command.GcDelete d) {
        return d.jobs().size() + d.evalIds().size() + d.allocIds().size() + d.deploymentIds().size()
                + d.jobVersions().size() + d.nodeIds().size();
    }

    /** What one pass deletes. */
    record Plan(List<Command.GcDelete.JobRef> jobs, List<String> evalIds, List<String> allocIds,
                List<String> deploymentIds, List<Command.GcDelete.JobVersionRef> jobVersions, List<String> nodeIds) {
        Plan() {
            this(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>(),
                    new ArrayList<>());
        }

        /** The plan cut into entries of at most {@link #BATCH} objects, jobs first (then what they owned). */
        List<Command.GcDelete> batches() {
            List<Command.GcDelete> out = new ArrayList<>();
            int[] at = new int[6];
            List<?>[] lists = {jobs, evalIds, allocIds, deploymentIds, jobVersions, nodeIds};
            while (true) {
                List<List<?>> cut = new ArrayList<>();
                int room = BATCH;
                for (int i = 0; i < lists.length; i++) {
                    int n = Math.min(room, lists[i].size() - at[i]);
                    cut.add(List.copyOf(lists[i].subList(at[i], at[i] + n)));
                    at[i] += n;
                    room -= n;
                }
                if (room == BATCH) {
                    return out;
                }
                @SuppressWarnings("unchecked")
                Command.GcDelete batch = new Command.GcDelete((List<Command.GcDelete.JobRef>) cut.get(0),
                        (List<String>) cut.get(1), (List<String>) cut.get(2), (List<String>) cut.get(3),
                        (List<Command.GcDelete.JobVersionRef>) cut.get(4), (List<String>) cut.get(5));
                out.add(batch);
            }
        }
    }

    /** What is collectable in {@code s} at {@code nowNanos}. Pure: the tests call it directly. */
    static Plan plan(StateSnapshot s, long nowNanos, Thresholds t) {
        Plan plan = new Plan();
        Set<String> evalsTaken = new HashSet<>();
        for (Job job : (Iterable<Job>) s.all(NomadTables.JOBS)::iterator) {
            if (!collectableJob(job)) {
                continue;
            }
            String key = NomadTables.key(job.namespace(), job.id());
            List<Evaluation> evals = s.byIndex(NomadTables.EVALS, "job", key).toList();
            List<Allocation> allocs = s.byIndex(NomadTables.ALLOCS, "job", key).toList();
            long lastActive = Math.max(job.submitTime() == null ? 0 : job.submitTime(), Math.max(
                    evals.stream().mapToLong(Evaluation::modifyTime).max().orElse(0),
                    allocs.stream().mapToLong(Allocation::modifyTime).max().orElse(0)));
            boolean activeDeployment = s.byIndex(NomadTables.DEPLOYMENTS, "job", key).anyMatch(Deployment::active);
            if (activeDeployment || !olderThan(lastActive, nowNanos, t.job())
                    || !evals.stream().allMatch(Evaluation::terminal)
                    || !allocs.stream().allMatch(Allocation::terminal)) {
                continue;
            }
            plan.jobs().add(new Command.GcDelete.JobRef(job.namespace(), job.id(), job.jobModifyIndex()));
            evals.forEach(e -> {
                plan.evalIds().add(e.id());
                evalsTaken.add(e.id());
            });
            allocs.forEach(a -> plan.allocIds().add(a.id()));
        }
        Set<String> jobsTaken = new HashSet<>();
        plan.jobs().forEach(j -> jobsTaken.add(NomadTables.key(j.namespace(), j.jobId())));
        for (Evaluation e : (Iterable<Evaluation>) s.all(NomadTables.EVALS)::iterator) {
            if (evalsTaken.contains(e.id()) || !e.terminal()) {
                continue;
            }
            Job job = s.get(NomadTables.JOBS, NomadTables.key(e.namespace(), e.jobId())).orElse(null);
            // A batch job not stopped (running, or finished and waiting for the job GC) keeps its current runs.
            boolean liveBatch = job != null && Job.TYPE_BATCH.equals(job.type()) && !Boolean.TRUE.equals(job.stop());
            if (!olderThan(e.modifyTime(), nowNanos, liveBatch ? t.batchEval() : t.eval())) {
                continue;
            }
            List<Allocation> allocs = s.byIndex(NomadTables.ALLOCS, "eval", e.id()).toList();
            if (!allocs.stream().allMatch(a -> a.terminal() && olderThan(a.modifyTime(), nowNanos, t.eval()))) {
                continue;
            }
            plan.evalIds().add(e.id());
            allocs.stream().filter(a -> !liveBatch || olderVersion(a, job)).forEach(a -> plan.allocIds().add(a.id()));
        }
        for (Deployment d : (Iterable<Deployment>) s.all(NomadTables.DEPLOYMENTS)::iterator) {
            if (d.active() || jobsTaken.contains(NomadTables.key(d.namespace(), d.jobId()))
                    || !olderThan(d.modifyTime(), nowNanos, t.deployment())) {
                continue;
            }
            boolean inUse = s.byIndex(NomadTables.ALLOCS, "job", NomadTables.key(d.namespace(), d.jobId()))
                    .anyMatch(a -> d.id().equals(a.deploymentId()) && !a.terminal());
            if (!inUse) {
                plan.deploymentIds().add(d.id());
            }
        }
        for (Job job : (Iterable<Job>) s.all(NomadTables.JOBS)::iterator) {
            String key = NomadTables.key(job.namespace(), job.id());
            if (!jobsTaken.contains(key)) {
                oldVersions(s, job, key, t.trackedVersions()).forEach(plan.jobVersions()::add);
            }
        }
        for (Node node : (Iterable<Node>) s.all(NomadTables.NODES)::iterator) {
            if (Node.STATUS_DOWN.equals(node.status())
                    && olderThan(node.statusUpdatedAt() * 1_000_000_000L, nowNanos, t.node())
                    && s.byIndex(NomadTables.ALLOCS, "node", node.id()).allMatch(Allocation::terminal)) {
                plan.nodeIds().add(node.id());
            }
        }
        return plan;
    }

    /** Nomad's {@code jobIsGCable}. */
    static boolean collectableJob(Job job) {
        boolean stopped = Boolean.TRUE.equals(job.stop());
        if (PeriodicJobs.isParent(job)) {
            return stopped;
        }
        if (!Job.STATUS_DEAD.equals(job.status())) {
            return false;
        }
        return stopped || Job.TYPE_BATCH.equals(job.type()) || Job.TYPE_SYSBATCH.equals(job.type());
    }

    private static boolean olderThan(long timeNanos, long nowNanos, Duration threshold) {
        return threshold.isZero() || nowNanos - timeNanos > threshold.toNanos();
    }

    private static boolean olderVersion(Allocation a, Job current) {
        return a.job() != null && a.job().version() != null && current.version() != null
                && a.job().version() < current.version();
    }

    /** Versions past the newest {@code keep}, except the current one and the latest stable one. */
    private static List<Command.GcDelete.JobVersionRef> oldVersions(StateSnapshot s, Job job, String key, int keep) {
        List<Job> versions = new ArrayList<>(s.prefix(NomadTables.JOB_VERSIONS, key + "\0").toList());
        if (versions.size() <= keep) {
            return List.of();
        }
        versions.sort(Comparator.comparingLong((Job v) -> v.version() == null ? 0 : v.version()).reversed());
        Long latestStable = versions.stream().filter(v -> Boolean.TRUE.equals(v.stable())).findFirst()
                .map(Job::version).orElse(null);
        return versions.subList(keep, versions.size()).stream()
                .filter(v -> !v.version().equals(latestStable) && !v.version().equals(job.version()))
                .map(v -> new Command.GcDelete.JobVersionRef(v.namespace(), v.id(), v.version())).toList();
    }

    /**
     * Applies a batch. Re-checked here, the same way on every replica, so that nothing changed since the leader read
     * it is lost: a job re-registered since (its JobModifyIndex moved), an allocation no longer terminal.
     */
    static Command.Result apply(Fsm.Txn txn, Command.GcDelete cmd) {
        StateTxn state = txn.state();
        for (Command.GcDelete.JobRef ref : cmd.jobs()) {
            state.get(NomadTables.JOBS, NomadTables.key(ref.namespace(), ref.jobId()))
                    .filter(job -> job.jobModifyIndex() != null && job.jobModifyIndex() == ref.jobModifyIndex())
                    .ifPresent(job -> JobApply.purge(txn, job));
        }
        for (String id : cmd.evalIds()) {
            state.get(NomadTables.EVALS, id).filter(Evaluation::terminal).ifPresent(txn::deleteEval);
        }
        for (String id : cmd.allocIds()) {
            state.get(NomadTables.ALLOCS, id).filter(Allocation::terminal).ifPresent(txn::deleteAlloc);
        }
        for (String id : cmd.deploymentIds()) {
            state.get(NomadTables.DEPLOYMENTS, id).filter(d -> !d.active())
                    .ifPresent(d -> state.delete(NomadTables.DEPLOYMENTS, d.id()));
        }
        for (Command.GcDelete.JobVersionRef v : cmd.jobVersions()) {
            state.delete(NomadTables.JOB_VERSIONS, NomadTables.key(v.namespace(), v.jobId()) + "\0"
                    + String.format("%020d", v.version()));
        }
        for (String id : cmd.nodeIds()) {
            if (state.get(NomadTables.NODES, id).filter(n -> Node.STATUS_DOWN.equals(n.status())).isPresent()) {
                state.delete(NomadTables.NODES, id);
                ServiceRegistrations.nodeGone(state, id);
            }
        }
        return Command.Result.ok(txn.index());
    }
}
