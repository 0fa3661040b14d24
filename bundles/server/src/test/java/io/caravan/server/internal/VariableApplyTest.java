package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import io.caravan.state.StateStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Check-and-set and lock rules of variables, as every replica applies them (through the log codec). */
class VariableApplyTest {
    private static final long SECOND = 1_000_000_000L;
    private static final long T0 = 1_700_000_000L * SECOND;

    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
    private final StateStore store = StateStore.create(NomadTables.ALL, timers, timers);
    private final Fsm fsm = new Fsm(store);

    @AfterEach
    void stop() {
        timers.shutdownNow();
    }

    private Command.Result apply(long index, Command command) {
        command.validate();
        return fsm.apply(index, CommandCodec.decode(CommandCodec.encode(command)));
    }

    static Variable var(String path, Map<String, String> items) {
        return new Variable("default", path, items, null, 0, 0, 0, 0);
    }

    private Command.Result put(long index, String path, String value, long now) {
        return apply(index, new Command.VariableSet(var(path, Map.of("k", value)), false, 0, null, now));
    }

    private Command.Result cas(long index, String path, String value, long checkIndex) {
        return apply(index, new Command.VariableSet(var(path, Map.of("k", value)), true, checkIndex, null, T0));
    }

    private Command.Result lock(long index, String op, String path, String id, long now) {
        return apply(index, new Command.VariableLockUpdate(op, new Variable("default", path, Map.of(),
                new Variable.Lock(id, "15s", "10s"), 0, 0, 0, 0), now));
    }

    private Variable.Entry stored(String path) {
        return store.snapshot().get(NomadTables.VARIABLES, NomadTables.key("default", path)).orElseThrow();
    }

    @Test
    void aSetCreatesThenUpdatesKeepingTheCreateIndexAndTime() {
        assertEquals(0, put(5, "a/b", "1", T0).errorCode());
        assertEquals(0, put(6, "a/b", "2", T0 + SECOND).errorCode());
        Variable v = stored("a/b").variable();
        assertEquals(Map.of("k", "2"), v.items());
        assertEquals(5, v.createIndex());
        assertEquals(T0, v.createTime());
        assertEquals(6, v.modifyIndex());
        assertEquals(T0 + SECOND, v.modifyTime());
        assertEquals(0, put(7, "a/b", "2", T0 + 2 * SECOND).errorCode());
        assertEquals(6, stored("a/b").variable().modifyIndex(), "an unchanged write keeps the indexes");
    }

    @Test
    void checkAndSetZeroMeansMustNotExistAndOnlyOneOfTwoRacingWritersWins() {
        assertEquals(0, cas(5, "db", "first", 0).errorCode());
        Command.Result second = cas(6, "db", "second", 0);
        assertEquals(409, second.errorCode());
        assertEquals(VariableApply.CAS_CONFLICT, second.error());
        // Two writers both read ModifyIndex 5: the first applied wins, the second conflicts.
        assertEquals(0, cas(7, "db", "x", 5).errorCode());
        assertEquals(409, cas(8, "db", "y", 5).errorCode());
        assertEquals(Map.of("k", "x"), stored("db").variable().items());
        assertEquals(409, cas(9, "missing", "z", 3).errorCode(), "an index for a missing variable conflicts");
    }

    @Test
    void deleteHonoursCheckAndSet() {
        put(5, "gone", "1", T0);
        Command.Result wrong = apply(6, new Command.VariableDelete("default", "gone", true, 4, null, T0));
        assertEquals(409, wrong.errorCode());
        assertEquals(409, apply(7, new Command.VariableDelete("default", "gone", true, 0, null, T0)).errorCode(),
                "0 conflicts with an existing variable");
        assertEquals(0, apply(8, new Command.VariableDelete("default", "gone", true, 5, null, T0)).errorCode());
        assertTrue(store.snapshot().get(NomadTables.VARIABLES, NomadTables.key("default", "gone")).isEmpty());
        assertEquals(0, apply(9, new Command.VariableDelete("default", "gone", true, 0, null, T0)).errorCode(),
                "0 on a missing variable is what the caller expected");
    }

    @Test
    void aHeldLockRefusesOtherHoldersAndWritersUntilItsTtlRunsOutAndItsDelayPasses() {
        assertEquals(0, lock(5, Command.VariableLockUpdate.ACQUIRE, "leader", "holder-1", T0).errorCode());
        Variable.Entry held = stored("leader");
        assertEquals("holder-1", held.variable().lock().id());
        assertEquals(T0 + 15 * SECOND, held.lockExpires());
        assertTrue(held.variable().items().isEmpty());

        Command.Result other = lock(6, Command.VariableLockUpdate.ACQUIRE, "leader", "holder-2", T0 + SECOND);
        assertEquals(409, other.errorCode());
        assertEquals(VariableApply.ALREADY_LOCKED, other.error());
        assertEquals(409, put(7, "leader", "x", T0 + SECOND).errorCode(), "only the holder writes a locked variable");
        assertEquals(0, apply(8, new Command.VariableSet(var("leader", Map.of("k", "v")), false, 0, "holder-1",
                T0 + SECOND)).errorCode());
        assertEquals("holder-1", stored("leader").variable().lock().id(), "the holder's write keeps the lock");

        // The TTL ran out at T0+15s: the lock counts as released, but a new holder waits for the 10s delay.
        assertEquals(409, lock(9, Command.VariableLockUpdate.RENEW, "leader", "holder-1", T0 + 16 * SECOND)
                .errorCode());
        Command.Result early = lock(10, Command.VariableLockUpdate.ACQUIRE, "leader", "holder-2", T0 + 20 * SECOND);
        assertEquals(VariableApply.LOCK_DELAY, early.error());
        assertNull(stored("leader").at(T0 + 20 * SECOND).lock(), "readers no longer see the expired lock");
        assertEquals(0, lock(11, Command.VariableLockUpdate.ACQUIRE, "leader", "holder-2", T0 + 25 * SECOND)
                .errorCode());
        assertEquals("holder-2", stored("leader").variable().lock().id());
        assertEquals(Map.of("k", "v"), stored("leader").variable().items(), "acquiring without items keeps them");
        assertNull(stored("leader").shown(T0 + 25 * SECOND).lock().id(), "others never see the holder's ID");

        // The holder may change the items, not the lock's parameters.
        Variable renamedTtl = var("leader", Map.of("k", "w")).withLock(new Variable.Lock("holder-2", "1h", null));
        assertEquals(400, apply(12, new Command.VariableSet(renamedTtl, false, 0, "holder-2", T0 + 26 * SECOND))
                .errorCode());
        Variable sameTtl = var("leader", Map.of("k", "w")).withLock(new Variable.Lock("holder-2", "15s", null));
        assertEquals(0, apply(13, new Command.VariableSet(sameTtl, false, 0, "holder-2", T0 + 26 * SECOND))
                .errorCode());
    }

    @Test
    void renewMovesTheDeadlineAndReleaseFreesTheLockAtOnce() {
        lock(5, Command.VariableLockUpdate.ACQUIRE, "l", "me", T0);
        assertEquals(0, lock(6, Command.VariableLockUpdate.RENEW, "l", "me", T0 + 10 * SECOND).errorCode());
        assertEquals(T0 + 25 * SECOND, stored("l").lockExpires());
        assertEquals(5, stored("l").variable().modifyIndex(), "a renewal does not modify the variable");
        assertEquals(409, lock(7, Command.VariableLockUpdate.RELEASE, "l", "not-me", T0 + 11 * SECOND).errorCode());
        assertEquals(0, lock(8, Command.VariableLockUpdate.RELEASE, "l", "me", T0 + 11 * SECOND).errorCode());
        assertNull(stored("l").variable().lock());
        assertFalse(stored("l").locked(T0 + 11 * SECOND));
        assertEquals(0, apply(9, new Command.VariableLockUpdate(Command.VariableLockUpdate.ACQUIRE,
                new Variable("default", "l", Map.of("new", "items"), new Variable.Lock("you", "15s", "10s"), 0, 0, 0,
                        0), T0 + 12 * SECOND)).errorCode(), "a released lock has no delay");
        assertEquals(Map.of("new", "items"), stored("l").variable().items(), "items given on acquire replace");
        assertEquals(404, lock(10, Command.VariableLockUpdate.RENEW, "nothing", "me", T0).errorCode());
    }

    @Test
    void commandsNoEndpointCouldBuildAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new Command.VariableSet(var("p", Map.of()), false, 0, null,
                T0).validate());
        assertThrows(IllegalArgumentException.class, () -> new Command.VariableLockUpdate("lock-steal",
                var("p", Map.of("k", "v")).withLock(new Variable.Lock("id", "15s", "15s")), T0).validate());
        assertThrows(IllegalArgumentException.class, () -> new Command.VariableLockUpdate(
                Command.VariableLockUpdate.ACQUIRE, var("p", Map.of()).withLock(new Variable.Lock("id", "soon", "1s")),
                T0).validate());
    }

    @Test
    void variablesSurviveASnapshotAndRestore() throws Exception {
        lock(5, Command.VariableLockUpdate.ACQUIRE, "snap", "me", T0);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        store.snapshot().writeTo(out, NomadTables.codec());
        StateStore restored = StateStore.create(NomadTables.ALL, timers, timers);
        restored.restore(new ByteArrayInputStream(out.toByteArray()), NomadTables.codec());
        Variable.Entry back = restored.snapshot().get(NomadTables.VARIABLES, NomadTables.key("default", "snap"))
                .orElseThrow();
        assertEquals(stored("snap"), back);
    }
}
