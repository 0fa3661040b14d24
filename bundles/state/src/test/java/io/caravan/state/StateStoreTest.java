package io.caravan.state;

import static io.caravan.state.Fixtures.ALLOCS;
import static io.caravan.state.Fixtures.NODES;
import static io.caravan.state.Fixtures.alloc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.caravan.state.Fixtures.Alloc;
import io.caravan.state.Fixtures.Node;

class StateStoreTest {

    private final ScheduledExecutorService scheduler = Fixtures.scheduler();
    private final ExecutorService executor = Fixtures.executor();
    private final StateStore store = StateStore.create(Fixtures.TABLES, scheduler, executor);

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
        executor.shutdownNow();
    }

    private void write(long index, Alloc... allocs) {
        try (StateTxn txn = store.begin(index)) {
            for (Alloc a : allocs) {
                txn.put(ALLOCS, a);
            }
            txn.commit();
        }
    }

    private static List<String> ids(java.util.stream.Stream<Alloc> s) {
        return s.map(Alloc::id).toList();
    }

    @Test
    void putGetDelete() {
        write(10, alloc("a1", "n1", "web"));
        StateSnapshot s = store.snapshot();
        assertEquals(Optional.of(alloc("a1", "n1", "web")), s.get(ALLOCS, "a1"));
        assertEquals(Optional.empty(), s.get(ALLOCS, "nope"));
        assertEquals(1, s.count(ALLOCS));

        try (StateTxn txn = store.begin(11)) {
            assertTrue(txn.delete(ALLOCS, "a1"));
            assertFalse(txn.delete(ALLOCS, "a1"));
            assertEquals(Optional.empty(), txn.get(ALLOCS, "a1"));
            txn.commit();
        }
        assertEquals(Optional.empty(), store.snapshot().get(ALLOCS, "a1"));
        assertEquals(0, store.snapshot().byIndex(ALLOCS, "node", "n1").count());
    }

    @Test
    void indexScansReturnTheCurrentRowWhenItsIndexKeyStays() {
        write(10, alloc("a1", "n1", "web", "x"));
        write(11, alloc("a1", "n1", "web", "x", "new"));
        assertEquals(List.of(alloc("a1", "n1", "web", "x", "new")),
                store.snapshot().byIndex(ALLOCS, "node", "n1").toList(), "the index covers the updated row");
    }

    @Test
    void secondaryIndexesFollowChangedFields() {
        write(10, alloc("a1", "n1", "web", "x", "y"), alloc("a2", "n1", "db", "y"), alloc("a3", "n2", "web"));
        StateSnapshot before = store.snapshot();
        assertEquals(List.of("a1", "a2"), ids(before.byIndex(ALLOCS, "node", "n1")));
        assertEquals(List.of("a1", "a3"), ids(before.byIndex(ALLOCS, "job", "web")));
        assertEquals(List.of("a1", "a2"), ids(before.byIndex(ALLOCS, "tag", "y")));
        assertEquals(List.of("a1"), ids(before.byIndex(ALLOCS, "tag", "x")));

        // a1 moves to n2 and loses tag x; a2 loses its node (absent from the index, like memdb's AllowMissing).
        write(11, alloc("a1", "n2", "web", "y", "z"), alloc("a2", null, "db", "y"));
        StateSnapshot after = store.snapshot();
        assertEquals(List.of(), ids(after.byIndex(ALLOCS, "node", "n1")));
        assertEquals(List.of("a1", "a3"), ids(after.byIndex(ALLOCS, "node", "n2")));
        assertEquals(List.of(), ids(after.byIndex(ALLOCS, "tag", "x")));
        assertEquals(List.of("a1"), ids(after.byIndex(ALLOCS, "tag", "z")));
        assertEquals(List.of("a1", "a2"), ids(after.byIndex(ALLOCS, "tag", "y")));
        // Index prefix: ordered by index key, then primary key.
        assertEquals(List.of("a1", "a3"), ids(after.byIndexPrefix(ALLOCS, "node", "n")));
        assertThrows(IllegalArgumentException.class, () -> after.byIndex(ALLOCS, "nope", "x"));
    }

    @Test
    void snapshotsAreIsolatedFromLaterCommits() {
        write(10, alloc("a1", "n1", "web"));
        StateSnapshot old = store.snapshot();
        write(11, alloc("a1", "n9", "web"), alloc("a2", "n1", "web"));
        assertEquals("n1", old.get(ALLOCS, "a1").orElseThrow().nodeId());
        assertEquals(List.of("a1"), ids(old.all(ALLOCS)));
        assertEquals(List.of("a1"), ids(old.byIndex(ALLOCS, "node", "n1")));
        assertEquals(10, old.latestIndex());
        assertEquals("n9", store.snapshot().get(ALLOCS, "a1").orElseThrow().nodeId());
    }

    @Test
    void uncommittedAndAbortedWritesAreInvisible() {
        write(10, alloc("a1", "n1", "web"));
        try (StateTxn txn = store.begin(11)) {
            txn.put(ALLOCS, alloc("a2", "n1", "web"));
            assertEquals(List.of("a1", "a2"), ids(txn.read().byIndex(ALLOCS, "node", "n1"))); // own writes
            assertEquals(List.of("a1"), ids(store.snapshot().all(ALLOCS)));
        } // closed without commit: aborted
        assertEquals(List.of("a1"), ids(store.snapshot().all(ALLOCS)));
        assertEquals(10, store.latestIndex());
        write(11, alloc("a3", "n1", "web")); // the aborted index can be reused
    }

    @Test
    void commitBumpsOnlyTheWrittenTables() {
        write(10, alloc("a1", "n1", "web"));
        try (StateTxn txn = store.begin(12)) {
            txn.put(NODES, new Node("n1", "alpha"));
            txn.commit();
        }
        StateSnapshot s = store.snapshot();
        assertEquals(10, s.tableIndex("allocs"));
        assertEquals(12, s.tableIndex("nodes"));
        assertEquals(12, s.latestIndex());
        try (StateTxn txn = store.begin(13)) {
            txn.delete(ALLOCS, "missing"); // wrote nothing: publishes nothing
            txn.commit();
        }
        assertEquals(12, store.latestIndex());
        assertEquals(10, store.snapshot().tableIndex("allocs"));
    }

    @Test
    void iterationOrdersPrefixesSeeksAndReverses() {
        write(10, alloc("b2", null, "j"), alloc("a1", null, "j"), alloc("b1", null, "j"), alloc("c1", null, "j"),
                alloc("ba", null, "j"));
        StateSnapshot s = store.snapshot();
        assertEquals(List.of("a1", "b1", "b2", "ba", "c1"), ids(s.all(ALLOCS)));
        assertEquals(List.of("c1", "ba", "b2", "b1", "a1"), ids(s.reversed(ALLOCS)));
        assertEquals(List.of("b1", "b2", "ba"), ids(s.prefix(ALLOCS, "b")));
        assertEquals(List.of(), ids(s.prefix(ALLOCS, "d")));
        assertEquals(List.of("b2", "ba", "c1"), ids(s.from(ALLOCS, "b2")));
        assertEquals(List.of("b2", "b1", "a1"), ids(s.reversedFrom(ALLOCS, "b2")));
        // Pagination with next_token: a page of 2 plus one look-ahead row whose ID is the next token.
        List<String> page = ids(s.from(ALLOCS, "a").limit(3));
        assertEquals(List.of("a1", "b1", "b2"), page);
        assertEquals(List.of("b2", "ba", "c1"), ids(s.from(ALLOCS, page.get(2)).limit(3)));
    }

    @Test
    void singleWriterIsEnforced() throws Exception {
        StateTxn txn = store.begin(10);
        assertThrows(IllegalStateException.class, () -> store.begin(11));
        Future<?> other = executor.submit(() -> txn.put(ALLOCS, alloc("a1", "n1", "web")));
        Exception e = assertThrows(Exception.class, () -> other.get(5, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof IllegalStateException, e.toString());
        txn.put(ALLOCS, alloc("a0", "n1", "web"));
        txn.commit();
        assertThrows(IllegalStateException.class, () -> txn.put(ALLOCS, alloc("a1", "n1", "web")));
        assertThrows(IllegalArgumentException.class, () -> store.begin(10)); // index must advance
        write(11, alloc("a1", "n1", "web"));
    }

    @Test
    void rejectsForeignSpecsAndWrongTypes() {
        TableSpec<Alloc> lookalike = TableSpec.of("allocs", Alloc.class, Alloc::id);
        assertThrows(IllegalArgumentException.class, () -> store.snapshot().get(lookalike, "a1"));
        try (StateTxn txn = store.begin(10)) {
            @SuppressWarnings({"unchecked", "rawtypes"})
            TableSpec<Object> raw = (TableSpec) ALLOCS;
            assertThrows(ClassCastException.class, () -> txn.put(raw, "not an alloc"));
        }
    }
}
