package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.caravan.api.CaravanException;
import io.caravan.api.json.NomadJson;
import io.caravan.server.internal.Keyring.RootKey;
import io.caravan.state.StateStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Variables encrypted at rest: what the log and the state hold, reads, key removal and a full rotation. */
class VariablesTest {
    private static final String SECRET = "hunter2-correct-horse";

    private final ServerState state = new ServerState();
    private final AtomicLong index = new AtomicLong();
    private final RaftWrites raft = JobLimitsTest.writes(state, index);
    private final EvalBrokerTest.MutableClock clock = new EvalBrokerTest.MutableClock();
    private final KeyPair pair = Keyring.newKeystorePair();
    private final KeyringService keyring = new KeyringService(state.store(), raft, pair, clock, false);
    private final Variables variables = new Variables(state.store(), keyring, clock);
    private final KeyringDuties duties = new KeyringDuties(state.store()::snapshot, keyring, variables, raft,
            KeyringTest.config("720h", "1h"));

    @AfterEach
    void stop() {
        state.deactivate();
    }

    /** A keyring with an active key on {@code state}, and its variables service. */
    static Variables ready(ServerState state, RaftWrites raft) {
        KeyringService keyring = new KeyringService(state.store(), raft, Keyring.newKeystorePair(),
                Clock.systemUTC(), false);
        keyring.tick();
        try {
            new KeyringDuties(state.store()::snapshot, keyring, raft, KeyringTest.config("720h", "1h"))
                    .ensureActive().orElseThrow().toCompletableFuture().get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return new Variables(state.store(), keyring, Clock.systemUTC());
    }

    private RootKey activate() throws Exception {
        keyring.tick();
        return duties.ensureActive().orElseThrow().toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    private void put(String path, Map<String, String> items) throws Exception {
        Variable sealed = variables.seal(new Variable("default", path, items, null, 0, 0, 0, 0));
        raft.submit(new Command.VariableSet(sealed, false, 0, null, variables.nowNanos()))
                .toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    private Variable stored(String path) {
        return state.store().snapshot().get(NomadTables.VARIABLES, NomadTables.key("default", path)).orElseThrow()
                .variable();
    }

    @Test
    void theLogEntryAndTheStoredRowHoldCiphertextOnlyAndReadsDecrypt() throws Exception {
        RootKey key = activate();
        Variable sealed = variables.seal(new Variable("default", "app/db", Map.of("password", SECRET), null, 0, 0, 0,
                0));
        String logEntry = new String(CommandCodec.encode(new Command.VariableSet(sealed, false, 0, null, 1)),
                StandardCharsets.UTF_8);
        assertFalse(logEntry.contains(SECRET), logEntry);
        assertFalse(logEntry.contains("password"), "item keys are encrypted too");

        put("app/db", Map.of("password", SECRET));
        Variable row = stored("app/db");
        assertTrue(row.items().isEmpty());
        assertEquals(key.keyId(), row.data().keyId());
        String json = NomadJson.mapper().writeValueAsString(row);
        assertFalse(json.contains(SECRET), json);
        ByteArrayOutputStream snapshot = new ByteArrayOutputStream();
        state.store().snapshot().writeTo(snapshot, NomadTables.codec());
        assertFalse(snapshot.toString(StandardCharsets.UTF_8).contains(SECRET));

        assertEquals(Map.of("password", SECRET), variables.read("default", "app/db").orElseThrow().items());
        assertTrue(variables.read("default", "none").isEmpty());
    }

    @Test
    void aSnapshotRestoresVariablesThatStillDecrypt() throws Exception {
        activate();
        put("snap", Map.of("k", SECRET));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        state.store().snapshot().writeTo(out, NomadTables.codec());
        ServerState other = new ServerState();
        try {
            other.store().restore(new ByteArrayInputStream(out.toByteArray()), NomadTables.codec());
            // the same server (its keystore) on the restored state
            KeyringService same = new KeyringService(other.store(), null, pair, clock, false);
            assertEquals(SECRET, new Variables(other.store(), same, clock).read("default", "snap").orElseThrow()
                    .items().get("k"));
        } finally {
            other.deactivate();
        }
    }

    @Test
    void aCiphertextMovedToAnotherPathDoesNotDecrypt() throws Exception {
        activate();
        put("a", Map.of("k", SECRET));
        Variable moved = new Variable("default", "b", Map.of(), null, 0, 0, 0, 0).withData(stored("a").data());
        assertThrows(CaravanException.class, () -> variables.open(moved));
    }

    @Test
    void rewritingTheSameItemsKeepsTheIndexesAndNewItemsChangeThem() throws Exception {
        activate();
        put("same", Map.of("k", "v"));
        long first = stored("same").modifyIndex();
        put("same", Map.of("k", "v"));
        assertEquals(first, stored("same").modifyIndex());
        put("same", Map.of("k", "w"));
        assertNotEquals(first, stored("same").modifyIndex());
    }

    @Test
    void aKeyThatEncryptsVariablesIsNeitherRemovedNorCollected() throws Exception {
        RootKey old = activate();
        put("kept", Map.of("k", SECRET));
        duties.rotate("test").toCompletableFuture().get(5, TimeUnit.SECONDS);   // plain rotation: old turns inactive
        clock.advance(Duration.ofHours(2));
        assertEquals(0, duties.gc(), "the inactive key still encrypts a variable");
        Command.Result refused = CommandCodec.decodeResult(state.apply(index.incrementAndGet(), 1000,
                CommandCodec.encode(new Command.RootKeyDelete(old.keyId()))));
        assertEquals(400, refused.errorCode());
        assertEquals(KeyringApply.IN_USE, refused.error());
        assertEquals(SECRET, variables.read("default", "kept").orElseThrow().items().get("k"));
    }

    @Test
    void aFullRotationReEncryptsEveryVariableInBatchesThenTheOldKeyIsInactiveAndRemovable() throws Exception {
        RootKey old = activate();
        int count = KeyringDuties.REKEY_BATCH * 2 + 5;
        for (int i = 0; i < count; i++) {
            put("many/" + i, Map.of("n", "value-" + i));
        }
        RootKey next = Keyring.row(Keyring.generate(), clock.millis() * 1_000_000L,
                state.store().snapshot().all(Keyring.KEYSTORES).toList());
        raft.submit(new Command.RootKeyUpsert(next, true)).toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertEquals(Keyring.REKEYING, key(old.keyId()).state());
        long before = index.get();

        List<Integer> batches = new ArrayList<>();
        for (int sent = duties.rekey(); sent > 0; sent = duties.rekey()) {
            batches.add(sent);
        }
        assertEquals(List.of(KeyringDuties.REKEY_BATCH, KeyringDuties.REKEY_BATCH, 5), batches);
        assertEquals(before + 4, index.get(), "three batches and the key's state change, one entry each");
        assertEquals(Keyring.INACTIVE, key(old.keyId()).state());
        for (int i = 0; i < count; i++) {
            Variable row = stored("many/" + i);
            assertEquals(next.keyId(), row.data().keyId());
            assertEquals("value-" + i, variables.read("default", "many/" + i).orElseThrow().items().get("n"));
        }
        Command.Result removed = CommandCodec.decodeResult(state.apply(index.incrementAndGet(), 1000,
                CommandCodec.encode(new Command.RootKeyDelete(old.keyId()))));
        assertEquals(0, removed.errorCode(), removed.error());
    }

    @Test
    void aRekeyedRowWrittenMeanwhileKeepsTheNewerWrite() throws Exception {
        activate();
        put("race", Map.of("k", "old"));
        Variable before = stored("race");
        put("race", Map.of("k", "new"));
        raft.submit(new Command.VariableRekey(List.of(new Command.VariableRekey.Rekeyed("default", "race",
                before.modifyIndex(), before.data())))).toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertEquals("new", variables.read("default", "race").orElseThrow().items().get("k"));
    }

    private RootKey key(String id) {
        RootKey k = state.store().snapshot().get(Keyring.ROOT_KEYS, id).orElse(null);
        assertNotNull(k);
        return k;
    }
}
