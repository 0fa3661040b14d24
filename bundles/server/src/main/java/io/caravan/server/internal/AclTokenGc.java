package io.caravan.server.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.caravan.api.acl.AclToken;
import io.caravan.state.StateSnapshot;
import io.caravan.state.StateStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's collection of expired ACL tokens (Nomad's expired-token GC): every {@link #INTERVAL}, tokens whose
 * expiration time passed more than the server's {@code acl_token_gc_threshold} ago are deleted through the Raft log,
 * at most {@link #BATCH} per write. An expired token is refused from the moment it expires; this only keeps the table
 * from growing, and the threshold keeps an expired token visible for a while to whoever lists tokens.
 */
final class AclTokenGc {
    private static final Logger LOG = LoggerFactory.getLogger(AclTokenGc.class);
    static final Duration INTERVAL = Duration.ofMinutes(5);
    /** Tokens deleted per Raft entry: 4096 accessor IDs are ~160 KB, far below the log's limit. */
    static final int BATCH = 4096;

    /** The server block's {@code acl_token_gc_threshold} as the agent writes it to PID {@code io.caravan.server}. */
    @interface Config {
        /** A Go duration; Nomad's default. */
        String acl_token_gc_threshold() default "1h";
    }

    private final StateStore store;
    private final RaftWrites writes;
    private final Clock clock;
    /** A reload may change it ({@code acl_token_gc_threshold} is live). */
    private volatile Duration threshold;
    private final GcPass pass = new GcPass(LOG, "expired ACL tokens");

    AclTokenGc(StateStore store, RaftWrites writes, Clock clock, Duration threshold) {
        this.store = store;
        this.writes = writes;
        this.clock = clock;
        this.threshold = threshold;
    }

    void threshold(Duration changed) {
        this.threshold = changed;
    }

    /**
     * The timer's task: one pass unless one is still writing (then nothing, 0). Never throws, since a periodic task
     * that throws is never run again; a failure is logged and retried next interval.
     */
    CompletionStage<Integer> run() {
        return pass.run(this::collect);
    }

    /**
     * One pass: deletes every collectable token, a batch per write, after the one-time tokens that expired unused;
     * completes with how many ACL tokens were deleted.
     */
    CompletionStage<Integer> collect() {
        long now = clock.millis();
        if (OneTimeTokens.expired(store.snapshot(), java.time.Instant.ofEpochMilli(now)).isEmpty()) {
            return collectTokens();
        }
        return writes.submit(new Command.OneTimeTokenExpire(now)).thenCompose(applied -> collectTokens());
    }

    private CompletionStage<Integer> collectTokens() {
        List<String> batch = collectable(store.snapshot(), clock.instant(), threshold);
        if (batch.isEmpty()) {
            return CompletableFuture.completedFuture(0);
        }
        return writes.submit(new Command.AclTokenDelete(batch)).thenCompose(applied -> batch.size() < BATCH
                ? CompletableFuture.completedFuture(batch.size())
                : collectTokens().thenApply(more -> batch.size() + more));
    }

    /** The accessor IDs of tokens that expired more than {@code threshold} before {@code now}, oldest first. */
    static List<String> collectable(StateSnapshot s, Instant now, Duration threshold) {
        Instant cutoff = now.minus(threshold);
        return s.all(NomadTables.ACL_TOKENS).filter(t -> t.expirationTime() != null
                        && t.expirationTime().isBefore(cutoff))
                .sorted(Comparator.comparing(AclToken::expirationTime)).limit(BATCH).map(AclToken::accessorId)
                .toList();
    }
}
