package io.caravan.server.internal;

import java.time.Duration;
import java.util.Iterator;
import java.util.Optional;
import java.util.UUID;

import io.caravan.state.IndexSpec;
import io.caravan.state.StateSnapshot;
import io.caravan.state.StateTxn;
import io.caravan.state.TableSpec;

/**
 * The writes the log has applied, by request ID ({@link CommandCodec}), with their results: a write retried after its
 * reply was lost (a forward to the leader, a leader change mid-append) reaches the log twice, and its second entry is
 * answered with the first result instead of being applied again. A table of the state store, so it is written in the
 * command's transaction, is the same on every server and travels in snapshots.
 *
 * <p>Bounded deterministically: rows older than {@link #RETAIN} by the leader's stamp of the entry being applied, and
 * the oldest beyond {@link #MAX_ROWS}, are dropped as later entries are applied. A retry reaches the log within about
 * ten seconds of the first attempt ({@link RaftWrites#LEADER_HOLD} plus the forward's own wait for a leader): RETAIN
 * leaves room for that and for the clocks of two leaders to differ, and MAX_ROWS holds 25 s of writes at the highest
 * rate measured (about 2,000/s). A row costs about 370 bytes of heap and 180 in a snapshot. Every server must use the
 * same bounds, or their tables (not their jobs) would differ.
 */
final class AppliedRequests {
    static final Duration RETAIN = Duration.ofMinutes(1);
    static final int MAX_ROWS = 50_000;
    private static final String ORDER = "order";

    /** One applied write: its request ID, the entry's index and leader stamp, and what applying it returned. */
    record Row(String requestId, long index, long timestampMillis, Command.Result result) {}

    /** Keyed by request ID; the {@value #ORDER} index lists rows in log order, oldest first, for pruning. */
    static final TableSpec<Row> TABLE = TableSpec.of("applied_requests", Row.class, Row::requestId)
            .withIndex(IndexSpec.single(ORDER, row -> order(row.index())));

    private AppliedRequests() {
    }

    /** The first result of {@code requestId}, if the log applied it (and it is still retained). */
    static Optional<Command.Result> result(StateSnapshot state, UUID requestId) {
        return state.get(TABLE, requestId.toString()).map(Row::result);
    }

    /**
     * Records an applied write, dropping the rows that fell out of the bounds at this entry's stamp.
     *
     * @param before the state before this entry (the command does not write this table): read here, not through the
     *     transaction, which would have to build a view of its own writes first
     */
    static void record(StateTxn state, StateSnapshot before, UUID requestId, long timestampMillis,
                       Command.Result result) {
        long expired = timestampMillis - RETAIN.toMillis();
        int excess = before.count(TABLE) + 1 - MAX_ROWS;
        Iterator<Row> oldest = before.byIndexPrefix(TABLE, ORDER, "").iterator();
        while (oldest.hasNext()) {
            Row row = oldest.next();
            if (excess <= 0 && row.timestampMillis() >= expired) {
                break;
            }
            state.delete(TABLE, row.requestId());
            excess--;
        }
        state.put(TABLE, new Row(requestId.toString(), state.index(), timestampMillis, result));
    }

    /** Sorts as the number does. */
    private static String order(long index) {
        String digits = Long.toString(index);
        return "0".repeat(Math.max(0, 19 - digits.length())) + digits;
    }
}
