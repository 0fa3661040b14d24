package io.caravan.server.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import io.caravan.api.model.Evaluation;

/**
 * Evaluations that could not place everything, waiting for capacity, as Nomad's blocked evals: one per job (a newer
 * one supersedes the older, which is cancelled). When a node of some computed class gains capacity (registers,
 * becomes ready or eligible, or an allocation on it stops), every blocked evaluation that did not find that class
 * ineligible goes back to the broker. An evaluation that escaped class-based caching (a constraint on a unique
 * attribute) is woken by any class. A capacity change newer than an evaluation's snapshot wakes it at once, so a
 * node that appeared while the scheduler ran is not missed.
 */
final class BlockedEvals {
    private final Consumer<Evaluation> unblock;
    private final Consumer<List<Evaluation>> cancel;
    private final Map<String, Evaluation> byJob = new LinkedHashMap<>();
    /** The latest index at which each class gained capacity; {@code ""} stands for "any class". */
    private final Map<String, Long> unblockIndexes = new HashMap<>();

    BlockedEvals(Consumer<Evaluation> unblock, Consumer<List<Evaluation>> cancel) {
        this.unblock = unblock;
        this.cancel = cancel;
    }

    void block(Evaluation eval) {
        Evaluation wake = null;
        Evaluation superseded = null;
        synchronized (this) {
            String job = NomadTables.key(eval.namespace(), eval.jobId());
            Evaluation before = byJob.get(job);
            if (before != null && before.id().equals(eval.id())) {
                return;
            }
            if (before != null && before.createIndex() > eval.createIndex()) {
                superseded = eval; // an older blocked eval arriving late
            } else {
                superseded = before;
                if (missedUnblock(eval)) {
                    byJob.remove(job);
                    wake = eval;
                } else {
                    byJob.put(job, eval);
                }
            }
        }
        if (superseded != null) {
            cancel.accept(List.of(superseded));
        }
        if (wake != null) {
            unblock.accept(wake);
        }
    }

    /** Capacity appeared on nodes of {@code computedClass} at {@code index}. */
    void unblock(String computedClass, long index) {
        List<Evaluation> woken = new ArrayList<>();
        synchronized (this) {
            unblockIndexes.merge(computedClass, index, Math::max);
            byJob.values().removeIf(e -> {
                if (wakes(e, computedClass)) {
                    woken.add(e);
                    return true;
                }
                return false;
            });
        }
        woken.forEach(unblock);
    }

    /** The job's blocked evaluation is no longer needed (it completed, or the job is gone). */
    synchronized void untrack(String namespace, String jobId, String evalId) {
        String job = NomadTables.key(namespace, jobId);
        Evaluation e = byJob.get(job);
        if (e != null && e.id().equals(evalId)) {
            byJob.remove(job);
        }
    }

    /** Whatever the job has blocked is no longer needed: an evaluation of it placed everything (cancelled in state). */
    synchronized void untrackJob(String namespace, String jobId) {
        byJob.remove(NomadTables.key(namespace, jobId));
    }

    synchronized int size() {
        return byJob.size();
    }

    private static boolean wakes(Evaluation e, String computedClass) {
        if (e.escapedComputedClass()) {
            return true;
        }
        Boolean eligible = e.classEligibility().get(computedClass);
        return eligible == null || eligible;
    }

    /** Lock held. */
    private boolean missedUnblock(Evaluation e) {
        for (Map.Entry<String, Long> u : unblockIndexes.entrySet()) {
            if (u.getValue() > e.snapshotIndex() && wakes(e, u.getKey())) {
                return true;
            }
        }
        return false;
    }
}
