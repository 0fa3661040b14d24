package io.caravan.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Running totals per key kept with every write: puts, replacements, moves, deletes, snapshots and restores. */
class AggregateTest {
    /** A row that counts {@code amount} under {@code key} while {@code live}. */
    record Item(String id, String key, long amount, boolean live) {
    }

    static final AggregateSpec<Item, Long, Long> TOTAL = new AggregateSpec<>("total", Item::key,
            i -> i.live() ? i.amount() : null, 0L, Long::sum, (total, amount) -> total - amount);
    static final TableSpec<Item> ITEMS = TableSpec.of("items", Item.class, Item::id).withAggregate(TOTAL);
    static final Codec CODEC = Codec.of(new TableCodec<>(ITEMS,
            i -> (i.id() + "," + (i.key() == null ? "" : i.key()) + "," + i.amount() + "," + i.live())
                    .getBytes(StandardCharsets.UTF_8),
            b -> {
                String[] f = new String(b, StandardCharsets.UTF_8).split(",", -1);
                return new Item(f[0], f[1].isEmpty() ? null : f[1], Long.parseLong(f[2]), Boolean.parseBoolean(f[3]));
            }));

    private final ScheduledExecutorService scheduler = Fixtures.scheduler();
    private final ExecutorService executor = Fixtures.executor();
    private final StateStore store = StateStore.create(List.of(ITEMS), scheduler, executor);
    private long index;

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
        executor.shutdownNow();
    }

    private void write(Item... items) {
        try (StateTxn txn = store.begin(++index)) {
            for (Item i : items) {
                txn.put(ITEMS, i);
            }
            txn.commit();
        }
    }

    private long total(StateSnapshot s, String key) {
        return s.aggregate(ITEMS, TOTAL, key);
    }

    @Test
    void followsPutsReplacementsMovesAndDeletes() {
        write(new Item("a", "n1", 5, true), new Item("b", "n1", 7, true), new Item("c", "n2", 1, true));
        StateSnapshot before = store.snapshot();
        assertEquals(12, total(before, "n1"));
        assertEquals(1, total(before, "n2"));
        assertEquals(0, total(before, "n3"), "a key nothing counts under answers the empty total");

        write(new Item("a", "n1", 6, true), new Item("b", "n2", 7, true), new Item("c", "n2", 1, false));
        StateSnapshot after = store.snapshot();
        assertEquals(6, total(after, "n1"), "a replaced row counts its new amount; a moved row leaves its old key");
        assertEquals(7, total(after, "n2"), "a row that no longer counts is subtracted");
        assertEquals(12, total(before, "n1"), "an earlier snapshot keeps its totals");

        try (StateTxn txn = store.begin(++index)) {
            txn.delete(ITEMS, "a");
            txn.put(ITEMS, new Item("d", null, 100, true));
            assertEquals(0, total(txn.read(), "n1"), "a transaction reads its own totals");
            txn.commit();
        }
        assertEquals(0, total(store.snapshot(), "n1"));
        assertEquals(7, total(store.snapshot(), "n2"));
    }

    @Test
    void matchesARecountAfterRandomWritesAndAfterARestore() throws IOException {
        Random random = new Random(42);
        Map<String, Item> rows = new HashMap<>();
        for (int round = 0; round < 200; round++) {
            try (StateTxn txn = store.begin(++index)) {
                for (int n = 0; n < 20; n++) {
                    String id = "i" + random.nextInt(300);
                    if (random.nextInt(5) == 0) {
                        txn.delete(ITEMS, id);
                        rows.remove(id);
                    } else {
                        Item item = new Item(id, random.nextInt(10) == 0 ? null : "k" + random.nextInt(8),
                                random.nextInt(50), random.nextInt(4) != 0);
                        txn.put(ITEMS, item);
                        rows.put(id, item);
                    }
                }
                txn.commit();
            }
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        store.snapshot().writeTo(out, CODEC);
        StateStore restored = StateStore.create(List.of(ITEMS), scheduler, executor);
        restored.restore(new ByteArrayInputStream(out.toByteArray()), CODEC);
        for (int k = 0; k < 8; k++) {
            String key = "k" + k;
            long expected = rows.values().stream().filter(i -> key.equals(i.key()) && i.live())
                    .mapToLong(Item::amount).sum();
            assertEquals(expected, total(store.snapshot(), key), key);
            assertEquals(expected, total(restored.snapshot(), key), key + " after a restore");
        }
    }

    @Test
    void namesAreUniqueAndUnknownAggregatesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> ITEMS.withAggregate(TOTAL));
        AggregateSpec<Item, Long, Long> other = new AggregateSpec<>("other", Item::key, Item::amount, 0L, Long::sum,
                (t, a) -> t - a);
        assertThrows(IllegalArgumentException.class, () -> store.snapshot().aggregate(ITEMS, other, "k"));
    }
}
