package io.caravan.state;

import static io.caravan.state.Fixtures.ALLOCS;
import static io.caravan.state.Fixtures.NODES;
import static io.caravan.state.Fixtures.alloc;
import static org.junit.jupiter.api.Assertions.assertEquals;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.caravan.state.Fixtures.Alloc;
import io.caravan.state.Fixtures.Node;

class ChangeCaptureTest {

    private final ScheduledExecutorService scheduler = Fixtures.scheduler();
    private final ExecutorService executor = Fixtures.executor();
    private final StateStore store = StateStore.create(Fixtures.TABLES, scheduler, executor);

    /** What the listener heard: one entry per commit. */
    private record Commit(long index, List<RowChange> changes, Thread thread) {}

    private final List<Commit> heard = new ArrayList<>();
    private final List<Long> restores = new ArrayList<>();
    private final ChangeListener listener = new ChangeListener() {
        @Override
        public void committed(long index, List<RowChange> changes) {
            heard.add(new Commit(index, changes, Thread.currentThread()));
        }

        @Override
        public void restored(long index) {
            restores.add(index);
        }
    };

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
        executor.shutdownNow();
    }

    @Test
    void eachCommitReportsItsRowsWithBeforeAndAfterOnTheCommittingThread() throws Exception {
        store.addChangeListener(listener);
        Alloc a1 = alloc("a1", "n1", "web");
        Alloc moved = a1.onNode("n2");
        try (StateTxn txn = store.begin(5)) {
            txn.put(ALLOCS, a1);
            txn.put(NODES, new Node("n1", "one"));
            txn.commit();
        }
        try (StateTxn txn = store.begin(6)) {
            txn.put(ALLOCS, moved);
            txn.delete(NODES, "n1");
            txn.commit();
        }

        assertEquals(2, heard.size());
        Commit first = heard.get(0);
        assertEquals(5, first.index());
        assertSame(Thread.currentThread(), first.thread());
        assertEquals(List.of(new RowChange("allocs", "a1", null, a1), new RowChange("nodes", "n1", null,
                new Node("n1", "one"))), first.changes());
        assertTrue(first.changes().get(0).created());

        Commit second = heard.get(1);
        assertEquals(6, second.index());
        assertEquals(new RowChange("allocs", "a1", a1, moved), second.changes().get(0));
        RowChange deleted = second.changes().get(1);
        assertTrue(deleted.deleted());
        assertEquals(new Node("n1", "one"), deleted.row());
    }

    @Test
    void rowsWrittenTwiceAreOneChangeAndInsertThenDeleteIsNone() {
        store.addChangeListener(listener);
        Alloc a1 = alloc("a1", "n1", "web");
        try (StateTxn txn = store.begin(1)) {
            txn.put(ALLOCS, a1);
            txn.commit();
        }
        Alloc a2 = a1.onNode("n2");
        Alloc a3 = a1.onNode("n3");
        try (StateTxn txn = store.begin(2)) {
            txn.put(ALLOCS, a2);
            txn.put(ALLOCS, a3);
            txn.put(ALLOCS, alloc("tmp", "n1", "web"));
            txn.delete(ALLOCS, "tmp");
            txn.commit();
        }
        assertEquals(List.of(new RowChange("allocs", "a1", a1, a3)), heard.get(1).changes());
    }

    @Test
    void abortedAndEmptyTransactionsReportNothingAndClosingUnregisters() throws Exception {
        AutoCloseable registration = store.addChangeListener(listener);
        try (StateTxn txn = store.begin(1)) {
            txn.put(ALLOCS, alloc("a1", "n1", "web"));
            // closed without commit: aborted
        }
        try (StateTxn txn = store.begin(2)) {
            txn.commit();
        }
        assertTrue(heard.isEmpty());
        registration.close();
        try (StateTxn txn = store.begin(3)) {
            txn.put(ALLOCS, alloc("a1", "n1", "web"));
            txn.commit();
        }
        assertTrue(heard.isEmpty());
    }

    @Test
    void aRestoreIsReportedAsSuch() throws Exception {
        try (StateTxn txn = store.begin(9)) {
            txn.put(ALLOCS, alloc("a1", "n1", "web"));
            txn.commit();
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        store.snapshot().writeTo(out, Fixtures.CODEC);
        StateStore other = StateStore.create(Fixtures.TABLES, scheduler, executor);
        other.addChangeListener(listener);
        other.restore(new ByteArrayInputStream(out.toByteArray()), Fixtures.CODEC);
        assertEquals(List.of(9L), restores);
        assertTrue(heard.isEmpty());
    }
}
