package io.caravan.state;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Scale check, not a test (no assertions, no timing in CI): inserts 1,000,000 small records in transactions of
 * 1,000, then writes a snapshot and restores it through a trivial codec, printing times and heap.
 *
 * <p>Run: {@code mvn -q test-compile && java -Xmx2g -cp target/classes:target/test-classes io.caravan.state.StateStoreScale}
 */
public final class StateStoreScale {

    record Item(String id, String group, long value) {
    }

    static final TableSpec<Item> ITEMS = TableSpec.of("items", Item.class, Item::id)
            .withIndex(IndexSpec.single("group", Item::group));

    static final Codec CODEC = Codec.of(new TableCodec<>(ITEMS,
            i -> (i.id() + '\u0001' + i.group() + '\u0001' + i.value()).getBytes(StandardCharsets.UTF_8),
            b -> {
                String[] f = new String(b, StandardCharsets.UTF_8).split("\u0001");
                return new Item(f[0], f[1], Long.parseLong(f[2]));
            }));

    public static void main(String[] args) throws Exception {
        int records = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int batch = 1_000;
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        try {
            StateStore store = StateStore.create(List.of(ITEMS), timer, Runnable::run);
            long heapBefore = usedHeap();

            long t0 = System.nanoTime();
            long index = 0;
            for (int start = 0; start < records; start += batch) {
                try (StateTxn txn = store.begin(++index)) {
                    for (int i = start; i < Math.min(records, start + batch); i++) {
                        // Hash-scattered IDs, like Nomad's UUIDs, so inserts land all over the tree.
                        txn.put(ITEMS, new Item(Integer.toHexString(i * 0x9E3779B1) + "-" + i, "g" + (i % 1000), i));
                    }
                    txn.commit();
                }
            }
            long insertNanos = System.nanoTime() - t0;
            long heapLoaded = usedHeap();

            t0 = System.nanoTime();
            StateSnapshot last = null;
            for (int i = 0; i < 1_000_000; i++) {
                last = store.snapshot();
            }
            long snapshotCallNanos = System.nanoTime() - t0;

            t0 = System.nanoTime();
            ByteArrayOutputStream out = new ByteArrayOutputStream(64 << 20);
            last.writeTo(out, CODEC);
            long writeNanos = System.nanoTime() - t0;
            byte[] bytes = out.toByteArray();
            long snapshotSize = bytes.length;
            out = null;

            StateStore restored = StateStore.create(List.of(ITEMS), timer, Runnable::run);
            t0 = System.nanoTime();
            restored.restore(new ByteArrayInputStream(bytes), CODEC);
            long restoreNanos = System.nanoTime() - t0;
            if (restored.snapshot().count(ITEMS) != records) {
                throw new AssertionError("restore lost rows");
            }
            restored = null;
            bytes = null;
            long heapAfter = usedHeap();

            System.out.printf("records=%,d batch=%,d (one secondary index, 1,000 keys)%n", records, batch);
            System.out.printf("insert:          %,d ms  (%,.0f rows/s)%n", insertNanos / 1_000_000,
                    records / (insertNanos / 1e9));
            System.out.printf("snapshot():      %.1f ns per call%n", snapshotCallNanos / 1e6);
            System.out.printf("writeTo:         %,d ms  (%,d bytes)%n", writeNanos / 1_000_000, snapshotSize);
            System.out.printf("restore:         %,d ms%n", restoreNanos / 1_000_000);
            System.out.printf("heap used:       %,d MB for the store (%,d MB before, %,d MB loaded, %,d MB at end)%n",
                    (heapLoaded - heapBefore) >> 20, heapBefore >> 20, heapLoaded >> 20, heapAfter >> 20);
            System.out.printf("jvm: %s %s, cpus=%d, max heap %,d MB%n", System.getProperty("java.vm.name"),
                    System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(),
                    Runtime.getRuntime().maxMemory() >> 20);
        } finally {
            timer.shutdownNow();
        }
    }

    private static long usedHeap() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private StateStoreScale() {
    }
}
