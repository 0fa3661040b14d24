package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import io.caravan.api.acl.AclToken;
import io.caravan.consensus.Applied;
import io.caravan.consensus.Replicator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The leader's expired-token GC on the real FSM, with an injected clock: only tokens expired longer than the threshold
 * go, through the Raft log, in batches; tokens without an expiry or not yet expired stay.
 */
class AclTokenGcTest {
    private static final Duration HOUR = Duration.ofHours(1);
    private final ServerState state = new ServerState();
    private final AtomicLong entries = new AtomicLong();
    private final RaftWrites writes = JobLimitsTest.writes(state, entries);
    private final EvalBrokerTest.MutableClock clock = new EvalBrokerTest.MutableClock();
    private final AclTokenGc gc = new AclTokenGc(state.store(), writes, clock, HOUR);

    @AfterEach
    void stop() {
        state.deactivate();
    }

    /** A client token created a day before now, expiring at {@code expires} (null: never). */
    static AclToken token(String accessor, Instant now, Instant expires) {
        return new AclToken(accessor, "secret-" + accessor, accessor, AclToken.CLIENT, List.of("readonly"), List.of(),
                false, now.minus(Duration.ofDays(1)), expires, null, 0, 0);
    }

    private void upsert(List<AclToken> tokens) throws Exception {
        writes.submit(new Command.AclTokenUpsert(tokens)).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private Set<String> stored() {
        return state.store().snapshot().all(NomadTables.ACL_TOKENS).map(AclToken::accessorId)
                .collect(Collectors.toSet());
    }

    private int collect() throws Exception {
        return gc.collect().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    @Test
    void onlyTokensExpiredLongerThanTheThresholdAreDeleted() throws Exception {
        Instant now = clock.instant();
        upsert(List.of(token("forever", now, null), token("long-expired", now, now.minus(Duration.ofHours(2))),
                token("just-expired", now, now.minus(Duration.ofMinutes(30))),
                token("live", now, now.plus(Duration.ofMinutes(10)))));
        long before = entries.get();

        assertEquals(1, collect());
        assertEquals(Set.of("forever", "just-expired", "live"), stored());
        assertEquals(before + 1, entries.get(), "one Raft write");

        clock.advance(Duration.ofMinutes(31));   // just-expired is now 61 minutes past its expiry
        assertEquals(1, collect());
        assertEquals(Set.of("forever", "live"), stored());

        clock.advance(Duration.ofMinutes(39));   // live expired exactly 60 minutes ago: not more than the threshold
        long quiet = entries.get();
        assertEquals(0, collect());
        assertEquals(quiet, entries.get(), "nothing to delete writes nothing");
        clock.advance(Duration.ofSeconds(1));
        assertEquals(1, collect());
        assertEquals(Set.of("forever"), stored());
    }

    @Test
    void theThresholdIsTheConfiguredOne() throws Exception {
        Instant now = clock.instant();
        upsert(List.of(token("a", now, now.minus(Duration.ofMinutes(2)))));
        assertEquals(0, collect());
        AclTokenGc quick = new AclTokenGc(state.store(), writes, clock, Duration.ofMinutes(1));
        assertEquals(1, quick.collect().toCompletableFuture().get(30, TimeUnit.SECONDS));
        assertEquals(Set.of(), stored());
    }

    @Test
    void manyExpiredTokensGoInBatches() throws Exception {
        Instant now = clock.instant();
        List<AclToken> tokens = new ArrayList<>();
        for (int i = 0; i < AclTokenGc.BATCH + 5; i++) {
            tokens.add(token("t" + i, now, now.minus(Duration.ofHours(2)).minusSeconds(i)));
        }
        tokens.add(token("forever", now, null));
        upsert(tokens);
        long before = entries.get();

        assertEquals(AclTokenGc.BATCH + 5, collect());
        assertEquals(Set.of("forever"), stored());
        assertEquals(before + 2, entries.get(), "two writes: a full batch, then the rest");
    }

    @Test
    void aTickWhileAPassIsStillWritingDoesNothing() throws Exception {
        Instant now = clock.instant();
        upsert(List.of(token("old", now, now.minus(Duration.ofHours(2)))));
        // A log that takes writes but does not answer until told to.
        List<CompletableFuture<Applied>> pending = new CopyOnWriteArrayList<>();
        RaftWrites slow = new RaftWrites();
        slow.bindReplicator(new Replicator() {
            public synchronized CompletionStage<Applied> submit(byte[] command) {
                CompletableFuture<Applied> answer = new CompletableFuture<>();
                pending.add(answer);
                long index = entries.incrementAndGet();
                return answer.thenApply(x -> new Applied(index, state.apply(index, 1000, command)));
            }
            public boolean isLeader() { return true; }
            public Optional<String> leaderAddress() { return Optional.empty(); }
            public long lastAppliedIndex() { return entries.get(); }
            public List<String> peers() { return List.of(); }
        });
        AclTokenGc slowGc = new AclTokenGc(state.store(), slow, clock, HOUR);
        CompletableFuture<Integer> first = slowGc.run().toCompletableFuture();
        assertEquals(0, slowGc.run().toCompletableFuture().get(10, TimeUnit.SECONDS), "skipped");
        assertEquals(1, pending.size(), "the second tick waits for the first pass");
        pending.get(0).complete(null);
        assertEquals(1, first.get(10, TimeUnit.SECONDS));
        assertTrue(stored().isEmpty());

        upsert(List.of(token("older", now, now.minus(Duration.ofHours(3)))));
        slowGc.run();   // the first pass is over: a new one writes
        assertEquals(2, pending.size());
        pending.get(1).complete(null);
    }

    @Test
    void aFailedWriteIsReportedAndTheNextTickTriesAgain() throws Exception {
        Instant now = clock.instant();
        upsert(List.of(token("old", now, now.minus(Duration.ofHours(2)))));
        AclTokenGc noLog = new AclTokenGc(state.store(), new RaftWrites(), clock, HOUR);   // no leader, ever
        ExecutionException failed = assertThrows(ExecutionException.class,
                () -> noLog.run().toCompletableFuture().get(30, TimeUnit.SECONDS));
        assertEquals("No cluster leader", failed.getCause().getMessage());
        assertEquals(1, collect(), "the token is still there for the next pass");
    }
}
