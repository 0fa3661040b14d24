package io.caravan.server.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.caravan.api.model.Job;
import io.caravan.state.StateSnapshot;
import io.caravan.state.StateStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Nomad's periodic dispatcher, a leader duty: tracks every active periodic job and, when its next cron time comes,
 * registers the child {@code <parent>/periodic-<unix>} with its evaluation through Raft. Built from the state store
 * when leadership starts: each job's next launch follows its last recorded launch ({@link PeriodicJobs.PeriodicLaunch}),
 * so launches missed while no leader ran are caught up — the latest one only, not every missed one — and a launch
 * already applied is not repeated (a child's ID is its launch time, and the register insists it is new).
 */
final class PeriodicDispatcher {
    private static final Logger LOG = LoggerFactory.getLogger(PeriodicDispatcher.class);
    /** How far back catch-up walks a cron to find the latest missed time (a day of one-second crons). */
    private static final int MAX_CATCH_UP_STEPS = 100_000;

    /** A tracked periodic job: the version it was tracked at and when it launches next (null: never). */
    private record Tracked(Job job, Instant next) {}

    private final StateStore store;
    private final RaftWrites writes;
    private final Clock clock;
    private final ScheduledExecutorService timers;
    private final Map<String, Tracked> tracked = new HashMap<>();
    private ScheduledFuture<?> timer;
    private boolean closed;

    PeriodicDispatcher(StateStore store, RaftWrites writes, Clock clock, ScheduledExecutorService timers) {
        this.store = store;
        this.writes = writes;
        this.clock = clock;
        this.timers = timers;
    }

    /** Tracks every active periodic job from its last launch, and launches what is due. */
    synchronized void restore() {
        tracked.clear();
        StateSnapshot s = store.snapshot();
        s.all(NomadTables.JOBS).filter(PeriodicJobs::isPeriodicActive).forEach(job -> {
            Instant last = s.get(PeriodicJobs.LAUNCHES, NomadTables.key(job.namespace(), job.id()))
                    .map(l -> Instant.ofEpochSecond(0, l.launch()))
                    .orElse(Instant.ofEpochSecond(0, job.submitTime() == null ? 0 : job.submitTime()));
            tracked.put(NomadTables.key(job.namespace(), job.id()),
                    new Tracked(job, PeriodicJobs.next(job.periodic(), last)));
        });
        tick();
    }

    /**
     * The job was written: a new or changed periodic job launches next after now (Nomad's {@code Add}); a stopped,
     * disabled or purged one is forgotten.
     */
    synchronized void jobChanged(String namespace, String jobId) {
        String key = NomadTables.key(namespace, jobId);
        Job job = store.snapshot().get(NomadTables.JOBS, key).orElse(null);
        if (job == null || !PeriodicJobs.isPeriodicActive(job)) {
            if (tracked.remove(key) != null) {
                schedule();
            }
            return;
        }
        Tracked was = tracked.get(key);
        if (was != null && was.job().jobModifyIndex().equals(job.jobModifyIndex())) {
            tracked.put(key, new Tracked(job, was.next())); // a status or index change: the schedule stands
            return;
        }
        tracked.put(key, new Tracked(job, PeriodicJobs.next(job.periodic(), clock.instant())));
        schedule();
    }

    /** When {@code namespace/jobId} launches next; null when it is not tracked or never launches again. */
    synchronized Instant nextLaunch(String namespace, String jobId) {
        Tracked t = tracked.get(NomadTables.key(namespace, jobId));
        return t == null ? null : t.next();
    }

    /** Launches every job that is due (the latest due time of each), then waits for the next one. */
    synchronized void tick() {
        if (closed) {
            return;
        }
        Instant now = clock.instant();
        for (Map.Entry<String, Tracked> e : tracked.entrySet()) {
            Tracked t = e.getValue();
            if (t.next() == null || t.next().isAfter(now)) {
                continue;
            }
            Instant launch = latestDue(t, now);
            e.setValue(new Tracked(t.job(), PeriodicJobs.next(t.job().periodic(), launch)));
            Job parent = t.job();
            if (Boolean.TRUE.equals(parent.periodic().prohibitOverlap()) && hasLiveChild(parent)) {
                LOG.atInfo().addKeyValue("job", parent.id()).addKeyValue("launch", launch)
                        .log("skipping a launch of a periodic job that prohibits overlap: a child is still running");
                continue;
            }
            launch(parent, launch).whenComplete((result, error) -> {
                if (error != null) {
                    LOG.atWarn().addKeyValue("job", parent.id()).addKeyValue("launch", launch).setCause(error)
                            .log("periodic launch failed");
                }
            });
        }
        schedule();
    }

    /** The latest time of the job's crons that is not after {@code now}, starting from its due time. */
    private static Instant latestDue(Tracked t, Instant now) {
        Instant launch = t.next();
        for (int i = 0; i < MAX_CATCH_UP_STEPS; i++) {
            Instant after = PeriodicJobs.next(t.job().periodic(), launch);
            if (after == null || after.isAfter(now)) {
                break;
            }
            launch = after;
        }
        return launch;
    }

    private boolean hasLiveChild(Job parent) {
        return PeriodicJobs.children(store.snapshot(), parent.namespace(), parent.id())
                .anyMatch(child -> !Job.STATUS_DEAD.equals(child.status()));
    }

    /**
     * Registers the child of a launch at {@code at} with its evaluation; completes with that evaluation once applied.
     * The register insists the child is new, so a launch two leaders both attempt happens once.
     */
    CompletionStage<Command.Result> launch(Job parent, Instant at) {
        Command.JobRegister register = PeriodicJobs.launch(parent, at, clock.millis() * 1_000_000L);
        LOG.atInfo().addKeyValue("job", parent.id()).addKeyValue("child", register.job().id())
                .log("launching periodic job");
        return writes.submit(register);
    }

    private void schedule() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
        if (closed) {
            return;
        }
        Instant earliest = tracked.values().stream().map(Tracked::next).filter(n -> n != null).min(Instant::compareTo)
                .orElse(null);
        if (earliest != null) {
            // Rounded up: a timer that fires before the wall clock reaches the launch would only spin.
            long delay = Math.max(0, Duration.between(clock.instant(), earliest).toMillis() + 1);
            timer = timers.schedule(this::tick, delay, TimeUnit.MILLISECONDS);
        }
    }

    synchronized void close() {
        closed = true;
        schedule();
        tracked.clear();
    }
}
