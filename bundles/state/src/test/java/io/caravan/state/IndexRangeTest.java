package io.caravan.state;

import static io.caravan.state.Fixtures.ALLOCS;
import static io.caravan.state.Fixtures.alloc;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Rows under a range of index keys, ascending and descending. */
class IndexRangeTest {
    private final ScheduledExecutorService scheduler = Fixtures.scheduler();
    private final ExecutorService executor = Fixtures.executor();
    private final StateStore store = StateStore.create(Fixtures.TABLES, scheduler, executor);

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
        executor.shutdownNow();
    }

    @Test
    void readsTheKeysInTheRangeOnlyInEitherOrder() {
        try (StateTxn txn = store.begin(1)) {
            for (String id : List.of("a", "b", "c", "d", "e", "f")) {
                txn.put(ALLOCS, alloc(id, "node-" + (id.charAt(0) - 'a') / 2, "job"));
            }
            txn.commit();
        }
        StateSnapshot s = store.snapshot();
        assertEquals(List.of("c", "d", "e", "f"), ids(s.byIndexRange(ALLOCS, "node", "node-1", "node-3", false)));
        assertEquals(List.of("f", "e", "d", "c"), ids(s.byIndexRange(ALLOCS, "node", "node-1", "node-3", true)));
        assertEquals(List.of("c", "d"), ids(s.byIndexRange(ALLOCS, "node", "node-1", "node-2", false)),
                "the upper bound is excluded");
        assertEquals(List.of("b", "a"), ids(s.byIndexRange(ALLOCS, "node", "", "node-1", true)));
        assertEquals(List.of(), ids(s.byIndexRange(ALLOCS, "node", "node-3", "node-9", false)));
    }

    private static List<String> ids(java.util.stream.Stream<Fixtures.Alloc> rows) {
        return rows.map(Fixtures.Alloc::id).toList();
    }
}
