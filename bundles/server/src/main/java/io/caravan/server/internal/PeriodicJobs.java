package io.caravan.server.internal;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.caravan.api.cron.CronExpression;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.api.model.JobSummary;
import io.caravan.api.model.PeriodicConfig;
import io.caravan.state.StateSnapshot;
import io.caravan.state.StateTxn;
import io.caravan.state.TableSpec;

/**
 * Periodic and parameterized parents and their children, as Nomad names and counts them: a parent is never scheduled;
 * a periodic launch is the child {@code <parent>/periodic-<unix seconds>}, a dispatch the child
 * {@code <parent>/dispatch-[<prefix>-]<unix seconds>-<8 hex>}. The {@code periodic_launch} table keeps each periodic
 * parent's last launch (at first its registration time), so that a new leader knows what it missed.
 */
final class PeriodicJobs {
    static final String PERIODIC_SUFFIX = "/periodic-";
    static final String DISPATCH_SUFFIX = "/dispatch-";

    /** Nomad's {@code PeriodicLaunch}: the last launch of a periodic parent, Unix nanoseconds. */
    record PeriodicLaunch(String id, String namespace, long launch, long createIndex, long modifyIndex) {}

    static final TableSpec<PeriodicLaunch> LAUNCHES = TableSpec.of("periodic_launch", PeriodicLaunch.class,
            l -> NomadTables.key(l.namespace(), l.id()));

    private PeriodicJobs() {
    }

    /** Nomad's {@code IsParameterized}: a parameterized job that is not itself a dispatched child. */
    static boolean isParameterized(Job job) {
        return job.parameterizedJob() != null && !job.dispatched();
    }

    /** A job that is a template for children and is never placed itself. */
    static boolean isParent(Job job) {
        return job.periodic() != null || isParameterized(job);
    }

    /** Nomad's {@code IsPeriodicActive}: launched by the dispatcher (a parameterized periodic job waits to be dispatched). */
    static boolean isPeriodicActive(Job job) {
        PeriodicConfig p = job.periodic();
        return p != null && !Boolean.FALSE.equals(p.enabled()) && !Boolean.TRUE.equals(job.stop())
                && !isParameterized(job);
    }

    /** The periodic block's specs: {@code crons}, or the single {@code cron}. */
    static List<String> specs(PeriodicConfig p) {
        List<String> specs = new ArrayList<>(p.specs());
        if (p.spec() != null && !p.spec().isEmpty()) {
            specs.add(p.spec());
        }
        return specs;
    }

    static ZoneId zone(PeriodicConfig p) {
        try {
            return p.timeZone() == null || p.timeZone().isEmpty() ? ZoneId.of("UTC") : ZoneId.of(p.timeZone());
        } catch (DateTimeException e) {
            return ZoneId.of("UTC"); // refused at registration; never reached for a stored job
        }
    }

    /** The earliest launch of any spec strictly after {@code after}; null when none will come. */
    static Instant next(PeriodicConfig p, Instant after) {
        Instant next = null;
        ZoneId zone = zone(p);
        for (String spec : specs(p)) {
            Instant t;
            try {
                t = CronExpression.parse(spec).next(after, zone);
            } catch (IllegalArgumentException e) {
                continue; // refused at registration
            }
            if (t != null && (next == null || t.isBefore(next))) {
                next = t;
            }
        }
        return next;
    }

    /** Nomad's {@code deriveJob}: the child a launch at {@code launch} creates. */
    static Job periodicChild(Job parent, Instant launch, long submitNanos) {
        String id = parent.id() + PERIODIC_SUFFIX + launch.getEpochSecond();
        return parent.toBuilder().id(id).name(id).parentId(parent.id()).periodic(null).status("")
                .statusDescription("").submitTime(submitNanos).build();
    }

    /**
     * The write of a launch at {@code at}: the child and its evaluation, registered only if no job of that ID exists
     * (two attempts at one launch — a forced run in the same second, a leader change — create one child).
     */
    static Command.JobRegister launch(Job parent, Instant at, long nowNanos) {
        Job child = periodicChild(parent, at, nowNanos);
        Evaluation eval = Evaluation.forJob(UUID.randomUUID().toString(), child, Evaluation.TRIGGER_PERIODIC_JOB,
                nowNanos);
        return new Command.JobRegister(child, eval, true, 0);
    }

    /** The launch time a periodic child's ID carries; null for another job. */
    static Instant launchOf(Job parent, String childId) {
        String prefix = parent.id() + PERIODIC_SUFFIX;
        if (!childId.startsWith(prefix)) {
            return null;
        }
        try {
            return Instant.ofEpochSecond(Long.parseLong(childId.substring(prefix.length())));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** The children of a parent: IDs under {@code <parent>/} whose ParentID names it. */
    static java.util.stream.Stream<Job> children(StateSnapshot s, String namespace, String parentId) {
        return s.prefix(NomadTables.JOBS, NomadTables.key(namespace, parentId + "/"))
                .filter(j -> parentId.equals(j.parentId()));
    }

    /**
     * Applies what registering {@code stored} means for launches: a new active periodic parent records its
     * registration as its first launch; a periodic child moves its parent's last launch forward to its own.
     */
    static void recordLaunch(StateTxn txn, Job stored) {
        long index = txn.index();
        if (isPeriodicActive(stored)) {
            String key = NomadTables.key(stored.namespace(), stored.id());
            if (txn.get(LAUNCHES, key).isEmpty()) {
                long at = stored.submitTime() == null ? 0 : stored.submitTime();
                txn.put(LAUNCHES, new PeriodicLaunch(stored.id(), stored.namespace(), at, index, index));
            }
        }
        if (stored.parentId() == null || stored.parentId().isEmpty()) {
            return;
        }
        Job parent = txn.get(NomadTables.JOBS, NomadTables.key(stored.namespace(), stored.parentId())).orElse(null);
        Instant launch = parent == null || parent.periodic() == null || isParameterized(parent) ? null
                : launchOf(parent, stored.id());
        if (launch == null) {
            return;
        }
        long nanos = launch.getEpochSecond() * 1_000_000_000L;
        String key = NomadTables.key(parent.namespace(), parent.id());
        PeriodicLaunch before = txn.get(LAUNCHES, key).orElse(null);
        if (before == null) {
            txn.put(LAUNCHES, new PeriodicLaunch(parent.id(), parent.namespace(), nanos, index, index));
        } else if (nanos > before.launch()) { // never backwards: an older launch forced late must not repeat others
            txn.put(LAUNCHES, new PeriodicLaunch(parent.id(), parent.namespace(), nanos, before.createIndex(), index));
        }
    }

    /** A purged parent forgets its launches. */
    static void forget(StateTxn txn, String namespace, String jobId) {
        String key = NomadTables.key(namespace, jobId);
        if (txn.get(LAUNCHES, key).isPresent()) {
            txn.delete(LAUNCHES, key);
        }
    }

    /** Recounts a parent's {@code Children} (pending, running, dead) into its summary, as Nomad keeps it. */
    static void countChildren(StateTxn txn, String namespace, String parentId) {
        String key = NomadTables.key(namespace, parentId);
        JobSummary before = txn.get(NomadTables.JOB_SUMMARIES, key).orElse(null);
        if (before == null) {
            return; // the parent is gone
        }
        long[] counts = new long[3];
        children(txn.read(), namespace, parentId).forEach(child -> {
            String status = child.status() == null ? "" : child.status();
            counts[switch (status) {
                case Job.STATUS_RUNNING -> 1;
                case Job.STATUS_DEAD -> 2;
                default -> 0;
            }]++;
        });
        JobSummary.Children children = new JobSummary.Children(counts[0], counts[1], counts[2]);
        if (!children.equals(before.children())) {
            txn.put(NomadTables.JOB_SUMMARIES, new JobSummary(before.jobId(), before.namespace(), before.summary(),
                    children, before.createIndex(), txn.index()));
        }
    }
}
