package io.caravan.state;

import static io.caravan.state.Fixtures.ALLOCS;
import static io.caravan.state.Fixtures.NODES;
import static io.caravan.state.Fixtures.alloc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.caravan.state.Fixtures.Alloc;
import io.caravan.state.Fixtures.Node;
import io.caravan.state.internal.MemStateStore;

class BlockingQueryTest {

    private static final Duration LONG = Duration.ofMinutes(5);

    private final ScheduledExecutorService scheduler = Fixtures.scheduler();
    private final ExecutorService executor = Fixtures.executor();
    private final StateStore store = StateStore.create(Fixtures.TABLES, scheduler, executor);

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
        executor.shutdownNow();
    }

    /** Nomad's "allocs on my node" query: indexed by the allocs table's index. */
    private static StateQuery<List<String>> allocsOn(String node) {
        return (s, ws) -> new Indexed<>(s.byIndex(ALLOCS, "node", node).map(Alloc::id).toList(),
                s.tableIndex("allocs"));
    }

    private void put(long index, Alloc a) {
        try (StateTxn txn = store.begin(index)) {
            txn.put(ALLOCS, a);
            txn.commit();
        }
    }

    private void putNode(long index, String id) {
        try (StateTxn txn = store.begin(index)) {
            txn.put(NODES, new Node(id, id));
            txn.commit();
        }
    }

    private static <T> Indexed<T> await(CompletableFuture<Indexed<T>> f) throws Exception {
        return f.get(10, TimeUnit.SECONDS);
    }

    @Test
    void returnsAtOnceWhenTheIndexIsAlreadyPastMinIndex() throws Exception {
        put(10, alloc("a1", "n1", "web"));
        CompletableFuture<Indexed<List<String>>> f = store.query(5, LONG, allocsOn("n1")).toCompletableFuture();
        assertTrue(f.isDone());
        assertEquals(new Indexed<>(List.of("a1"), 10L), await(f));
        assertTrue(store.query(0, LONG, allocsOn("n1")).toCompletableFuture().isDone()); // minIndex 0: no blocking
    }

    @Test
    void parksAndWakesOnACommitToWhatItWatches() throws Exception {
        put(10, alloc("a1", "n1", "web"));
        CompletableFuture<Indexed<List<String>>> f = store.query(10, LONG, allocsOn("n1")).toCompletableFuture();
        assertFalse(f.isDone());
        assertEquals(1, ((MemStateStore) store).parkedQueries());
        put(11, alloc("a2", "n1", "web"));
        assertEquals(new Indexed<>(List.of("a1", "a2"), 11L), await(f));
        assertEquals(0, ((MemStateStore) store).parkedQueries());
    }

    @Test
    void doesNotWakeOnUnrelatedCommits() throws Exception {
        put(10, alloc("a1", "n1", "web"));
        List<String> runs = new ArrayList<>();
        CompletableFuture<Indexed<List<String>>> f = store.<List<String>>query(10, LONG, (s, ws) -> {
            synchronized (runs) {
                runs.add("run");
            }
            return allocsOn("n1").run(s, ws);
        }).toCompletableFuture();
        putNode(11, "n1");                       // another table
        put(12, alloc("a9", "n2", "web"));       // same table, another node: the index watch is precise
        put(13, alloc("a1", "n1", "web"));       // an update of a watched row wakes it
        assertEquals(new Indexed<>(List.of("a1"), 13L), await(f));
        synchronized (runs) {
            assertEquals(2, runs.size(), "initial run + one re-run");
        }
    }

    @Test
    void wakesWhenARowMovesAwayFromAWatchedIndexKey() throws Exception {
        put(10, alloc("a1", "n1", "web"));
        CompletableFuture<Indexed<List<String>>> f = store.query(10, LONG, allocsOn("n1")).toCompletableFuture();
        put(11, alloc("a1", "n2", "web"));
        assertEquals(new Indexed<>(List.of(), 11L), await(f));
    }

    @Test
    void timesOutWithTheCurrentResult() throws Exception {
        put(10, alloc("a1", "n1", "web"));
        long start = System.nanoTime();
        CompletableFuture<Indexed<List<String>>> f =
                store.query(10, Duration.ofMillis(200), allocsOn("n1")).toCompletableFuture();
        putNode(11, "n1"); // unrelated: must not end the wait
        assertEquals(new Indexed<>(List.of("a1"), 10L), await(f));
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(200));
        assertEquals(0, ((MemStateStore) store).parkedQueries(), "expired waiters are unregistered");
    }

    @Test
    void keyAndPrefixWatchesAreRegisteredByReads() throws Exception {
        put(10, alloc("job-a/1", "n1", "a"));
        CompletableFuture<Indexed<Boolean>> byKey = store.<Boolean>query(10, LONG, (s, ws) ->
                new Indexed<>(s.get(ALLOCS, "job-a/1").isPresent(), s.tableIndex("allocs"))).toCompletableFuture();
        CompletableFuture<Indexed<Long>> byPrefix = store.<Long>query(10, LONG, (s, ws) ->
                new Indexed<>(s.prefix(ALLOCS, "job-b/").count(), s.tableIndex("allocs"))).toCompletableFuture();
        put(11, alloc("job-c/1", "n1", "c"));
        assertFalse(byKey.isDone());
        assertFalse(byPrefix.isDone());
        put(12, alloc("job-b/1", "n1", "b"));
        assertEquals(new Indexed<>(1L, 12L), await(byPrefix));
        assertFalse(byKey.isDone());
        try (StateTxn txn = store.begin(13)) {
            txn.delete(ALLOCS, "job-a/1");
            txn.commit();
        }
        assertEquals(new Indexed<>(false, 13L), await(byKey));
    }

    @Test
    void explicitWatchesWakeToo() throws Exception {
        putNode(10, "n1");
        // Reads only the index (registers nothing by itself), so it watches the table explicitly.
        CompletableFuture<Indexed<Long>> f = store.<Long>query(10, LONG, (s, ws) -> {
            ws.table("nodes");
            return new Indexed<>(s.tableIndex("nodes"), s.tableIndex("nodes"));
        }).toCompletableFuture();
        put(11, alloc("a1", "n1", "web"));
        assertFalse(f.isDone());
        putNode(12, "n2");
        assertEquals(new Indexed<>(12L, 12L), await(f));
    }

    @Test
    void queryFailuresFailTheStage() {
        CompletableFuture<Indexed<Object>> f = store.query(0, LONG, (s, ws) -> {
            throw new IllegalStateException("boom");
        }).toCompletableFuture();
        assertTrue(f.isCompletedExceptionally());
    }

    @Test
    void tenThousandParkedQueriesCostNoThreads() throws Exception {
        put(10, alloc("a1", "n1", "web"));
        // Start the pools' threads before counting so that only parking is measured.
        store.query(10, Duration.ofMillis(1), allocsOn("n1")).toCompletableFuture().get(10, TimeUnit.SECONDS);
        executor.submit(() -> { }).get();
        int threadsBefore = Thread.activeCount();

        List<CompletableFuture<Indexed<List<String>>>> parked = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            parked.add(store.query(10, LONG, allocsOn("n1")).toCompletableFuture());
        }
        assertEquals(10_000, ((MemStateStore) store).parkedQueries());
        assertTrue(Thread.activeCount() <= threadsBefore + 3,
                "threads grew from " + threadsBefore + " to " + Thread.activeCount());

        put(11, alloc("a2", "n1", "web"));
        CompletableFuture.allOf(parked.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        for (CompletableFuture<Indexed<List<String>>> f : parked) {
            assertEquals(11L, f.join().index());
        }
        assertEquals(0, ((MemStateStore) store).parkedQueries());
        assertTrue(Thread.activeCount() <= threadsBefore + 3);
    }

    @Test
    void noCommitIsMissedWhileQueriesRaceWithTheWriter() throws Exception {
        // Each query waits for the index after the one it saw; a lost wake-up would leave one hanging until
        // its 5-minute deadline, so the bounded get() below would fail.
        List<CompletableFuture<Indexed<List<String>>>> all = new ArrayList<>();
        Thread writer = new Thread(() -> {
            for (int i = 1; i <= 2_000; i++) {
                put(i, alloc("a" + (i % 7), "n1", "web"));
            }
        });
        writer.start();
        for (int i = 0; i < 2_000; i++) {
            long seen = store.latestIndex();
            if (seen < 2_000) {
                all.add(store.query(seen, LONG, allocsOn("n1")).toCompletableFuture());
            }
        }
        writer.join(30_000);
        assertFalse(writer.isAlive());
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
    }

    @Test
    void restoreWakesEveryWatcher() throws Exception {
        // The snapshot to restore comes from a replica that is ahead: allocs at 20, no nodes.
        StateStore ahead = StateStore.create(Fixtures.TABLES, scheduler, executor);
        try (StateTxn txn = ahead.begin(20)) {
            txn.put(ALLOCS, alloc("b1", "n1", "web"));
            txn.commit();
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ahead.snapshot().writeTo(bytes, Fixtures.CODEC);

        put(10, alloc("a1", "n1", "web"));
        putNode(11, "n1");
        List<String> nodeRuns = new ArrayList<>();
        CompletableFuture<Indexed<List<String>>> onNode = store.query(10, LONG, allocsOn("n1")).toCompletableFuture();
        CompletableFuture<Indexed<Integer>> nodes = store.<Integer>query(11, LONG, (s, ws) -> {
            synchronized (nodeRuns) {
                nodeRuns.add("run");
            }
            return new Indexed<>(s.count(NODES), s.tableIndex("nodes"));
        }).toCompletableFuture();
        assertFalse(onNode.isDone());
        assertFalse(nodes.isDone());

        store.restore(new ByteArrayInputStream(bytes.toByteArray()), Fixtures.CODEC);
        assertEquals(new Indexed<>(List.of("b1"), 20L), await(onNode));
        // The nodes query was woken too (Nomad's abandon channel), re-ran, saw index 0 and parked again.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline && nodeRunsCount(nodeRuns) < 2) {
            Thread.sleep(5);
        }
        assertEquals(2, nodeRunsCount(nodeRuns));
        assertFalse(nodes.isDone());
    }

    private static int nodeRunsCount(List<String> runs) {
        synchronized (runs) {
            return runs.size();
        }
    }
}
