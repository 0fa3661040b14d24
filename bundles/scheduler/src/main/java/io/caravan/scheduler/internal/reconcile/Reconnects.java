package io.caravan.scheduler.internal.reconcile;

import java.time.Instant;

import io.caravan.api.model.AllocMetric;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.DisconnectStrategy;
import io.caravan.api.model.TaskState;

/**
 * Which of a reconnected allocation and its replacement to keep: the group's {@code disconnect.reconcile} choice.
 * Ties keep the original, so a reconnect never moves work without a reason.
 */
final class Reconnects {
    private Reconnects() {
    }

    static Allocation pick(String mode, Allocation original, Allocation replacement) {
        return switch (mode) {
            case DisconnectStrategy.RECONCILE_KEEP_ORIGINAL -> original;
            case DisconnectStrategy.RECONCILE_KEEP_REPLACEMENT -> replacement;
            case DisconnectStrategy.RECONCILE_LONGEST_RUNNING ->
                    runningSince(replacement) < runningSince(original) ? replacement : original;
            default -> bestScore(original, replacement);
        };
    }

    /**
     * {@code best_score}: a replacement of a newer job version wins; otherwise the replacement wins only with a better
     * placement score, and never by replacing a running original with one that is not running.
     */
    private static Allocation bestScore(Allocation original, Allocation replacement) {
        if (version(replacement) > version(original)) {
            return replacement;
        }
        double originalScore = maxNormScore(original);
        double replacementScore = maxNormScore(replacement);
        boolean better = !Double.isNaN(replacementScore)
                && (Double.isNaN(originalScore) || replacementScore > originalScore);
        boolean runningOrNoWorse = Allocation.CLIENT_RUNNING.equals(replacement.clientStatus())
                || !Allocation.CLIENT_RUNNING.equals(original.clientStatus());
        return better && runningOrNoWorse ? replacement : original;
    }

    private static long version(Allocation alloc) {
        return alloc.job() == null || alloc.job().version() == null ? -1 : alloc.job().version();
    }

    /** The best normalised score the allocation's node got when it was placed, or NaN when unknown. */
    private static double maxNormScore(Allocation alloc) {
        AllocMetric metrics = alloc.metrics();
        if (metrics == null || metrics.scoreMetaData().isEmpty()) {
            return Double.NaN;
        }
        double best = Double.NEGATIVE_INFINITY;
        for (AllocMetric.NodeScoreMeta meta : metrics.scoreMetaData()) {
            best = Math.max(best, meta.normScore());
        }
        return best;
    }

    /** Epoch nanos since which every running task has run without restarting; MAX_VALUE when nothing runs. */
    private static long runningSince(Allocation alloc) {
        long since = Long.MAX_VALUE;
        for (TaskState state : alloc.taskStates().values()) {
            if (state == null || !TaskState.STATE_RUNNING.equals(state.state())) {
                continue;
            }
            // The later of start and last restart (an unset restart may be Go's zero time, long before the start).
            long started = Math.max(nanos(state.startedAt()), nanos(state.lastRestart()));
            if (started > Long.MIN_VALUE) {
                since = Math.min(since, started);
            }
        }
        return since;
    }

    private static long nanos(Instant t) {
        return t == null ? Long.MIN_VALUE : t.getEpochSecond() * 1_000_000_000L + t.getNano();
    }
}
