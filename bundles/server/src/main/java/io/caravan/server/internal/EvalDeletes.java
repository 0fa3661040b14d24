package io.caravan.server.internal;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.Predicate;

import io.caravan.api.json.NomadJson;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.http.filter.Filter;
import io.caravan.state.StateSnapshot;

/**
 * An operator's delete of evaluations (Nomad's {@code Eval.Delete}), in bounded Raft entries. By ID: only the
 * evaluations that are safe to delete. By filter: the endpoint reads one page of matches on its snapshot
 * ({@link #page}) and the entry carries the filter and the page's bounds, which every replica re-runs
 * ({@link #apply}); an entry is never larger than the filter text, whatever it selects.
 */
final class EvalDeletes {
    /** Nomad's {@code MaxUUIDsPerWriteRequest}: as many UUIDs as fit in 256 KiB. */
    static final int MAX_IDS = 7_281;
    /** Evaluations one filter entry may delete: keeps each apply in the tens of milliseconds (bench/RESULTS.md). */
    static final int MAX_PER_PAGE = 10_000;
    static final int DEFAULT_PER_PAGE = 1_000;

    private EvalDeletes() {
    }

    /** The bounds of one page of a filter delete: {@code count} matches in {@code [fromId, toId)}, "" = no end. */
    record Page(String fromId, String toId, int count) {}

    /** The filter on an evaluation in Nomad's JSON; a selector no evaluation has is a 400 (the endpoint's check). */
    static Predicate<Evaluation> matcher(Filter filter) {
        return e -> filter.matches(NomadJson.mapper().valueToTree(e));
    }

    /** The same on the apply path, which must never throw: what the endpoint refused cannot match here. */
    private static Predicate<Evaluation> lenientMatcher(Filter filter) {
        Predicate<Evaluation> strict = matcher(filter);
        return e -> {
            try {
                return strict.test(e);
            } catch (RuntimeException invalid) {
                return false;
            }
        };
    }

    /** The next page of matches from {@code fromId} (inclusive): at most {@code perPage}. */
    static Page page(StateSnapshot s, Predicate<Evaluation> matches, String fromId, int perPage) {
        Iterator<Evaluation> evals = (fromId.isEmpty() ? s.all(NomadTables.EVALS) : s.from(NomadTables.EVALS, fromId))
                .iterator();
        int count = 0;
        while (evals.hasNext()) {
            Evaluation e = evals.next();
            if (!matches.test(e)) {
                continue;
            }
            if (count == perPage) {
                return new Page(fromId, e.id(), count);
            }
            count++;
        }
        return new Page(fromId, "", count);
    }

    /**
     * Nomad's rule for a delete by ID: an evaluation may go when its job is gone, stopped or dead, or when every
     * allocation it made is terminal — else the job would lose track of allocations still running.
     */
    static boolean safeToDelete(StateSnapshot s, Evaluation e) {
        Job job = s.get(NomadTables.JOBS, NomadTables.key(e.namespace(), e.jobId())).orElse(null);
        if (job == null || Boolean.TRUE.equals(job.stop()) || Job.STATUS_DEAD.equals(job.status())) {
            return true;
        }
        return s.byIndex(NomadTables.ALLOCS, "eval", e.id()).allMatch(Allocation::terminal);
    }

    static Command.Result apply(Fsm.Txn txn, Command.EvalDelete cmd) {
        StateSnapshot s = txn.state().read();
        List<Evaluation> doomed = new ArrayList<>();
        if (cmd.evalIds().isEmpty()) {
            Predicate<Evaluation> matches = lenientMatcher(Filter.parse(cmd.filter()));
            Iterator<Evaluation> evals = (cmd.fromId().isEmpty() ? s.all(NomadTables.EVALS)
                    : s.from(NomadTables.EVALS, cmd.fromId())).iterator();
            while (evals.hasNext() && doomed.size() < cmd.perPage()) {
                Evaluation e = evals.next();
                if (!cmd.toId().isEmpty() && e.id().compareTo(cmd.toId()) >= 0) {
                    break;
                }
                if (matches.test(e)) {
                    doomed.add(e);
                }
            }
        } else {
            cmd.evalIds().forEach(id -> s.get(NomadTables.EVALS, id).ifPresent(doomed::add));
        }
        doomed.forEach(txn::deleteEval);
        return Command.Result.ok(txn.index());
    }
}
