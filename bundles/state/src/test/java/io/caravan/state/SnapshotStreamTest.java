package io.caravan.state;

import static io.caravan.state.Fixtures.ALLOCS;
import static io.caravan.state.Fixtures.NODES;
import static io.caravan.state.Fixtures.alloc;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.caravan.state.Fixtures.Alloc;
import io.caravan.state.Fixtures.Node;

class SnapshotStreamTest {

    private final ScheduledExecutorService scheduler = Fixtures.scheduler();
    private final ExecutorService executor = Fixtures.executor();
    private final StateStore source = StateStore.create(Fixtures.TABLES, scheduler, executor);
    private final StateStore target = StateStore.create(Fixtures.TABLES, scheduler, executor);

    @BeforeEach
    void fill() {
        Random rnd = new Random(7);
        for (int batch = 0; batch < 10; batch++) {
            try (StateTxn txn = source.begin(100 + batch)) {
                for (int i = 0; i < 50; i++) {
                    int n = rnd.nextInt(300);
                    txn.put(ALLOCS, alloc("alloc-" + n, rnd.nextBoolean() ? "node-" + rnd.nextInt(5) : null,
                            "job-" + rnd.nextInt(3), "t" + rnd.nextInt(4), "t" + rnd.nextInt(4)));
                }
                txn.commit();
            }
        }
        try (StateTxn txn = source.begin(200)) {
            txn.put(NODES, new Node("node-1", "höst ünicode"));
            txn.commit();
        }
    }

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
        executor.shutdownNow();
    }

    private byte[] snapshotBytes() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        source.snapshot().writeTo(out, Fixtures.CODEC);
        return out.toByteArray();
    }

    @Test
    void roundTripRestoresRowsIndexesAndTableIndexes() throws IOException {
        byte[] bytes = snapshotBytes();
        target.restore(new ByteArrayInputStream(bytes), Fixtures.CODEC);
        StateSnapshot a = source.snapshot();
        StateSnapshot b = target.snapshot();
        assertEquals(a.all(ALLOCS).toList(), b.all(ALLOCS).toList());
        assertEquals(a.all(NODES).toList(), b.all(NODES).toList());
        for (int n = 0; n < 5; n++) {
            assertEquals(a.byIndex(ALLOCS, "node", "node-" + n).toList(), b.byIndex(ALLOCS, "node", "node-" + n).toList());
        }
        assertEquals(a.byIndexPrefix(ALLOCS, "tag", "t").toList(), b.byIndexPrefix(ALLOCS, "tag", "t").toList());
        assertEquals(109, b.tableIndex("allocs"));
        assertEquals(200, b.tableIndex("nodes"));
        assertEquals(200, b.latestIndex());
        // Deterministic: the restored store writes the same bytes.
        ByteArrayOutputStream again = new ByteArrayOutputStream();
        b.writeTo(again, Fixtures.CODEC);
        assertArrayEquals(bytes, again.toByteArray());
        // And it accepts the next Raft entry.
        try (StateTxn txn = target.begin(201)) {
            txn.put(ALLOCS, alloc("new", "node-1", "job-0"));
            txn.commit();
        }
    }

    @Test
    void corruptOrTruncatedStreamsAreRejectedAndChangeNothing() throws IOException {
        try (StateTxn txn = target.begin(5)) {
            txn.put(NODES, new Node("keep", "me"));
            txn.commit();
        }
        byte[] good = snapshotBytes();
        Random rnd = new Random(11);
        for (int trial = 0; trial < 200; trial++) {
            byte[] bad = good.clone();
            int pos = trial < 20 ? trial : rnd.nextInt(bad.length); // the header, then anywhere
            bad[pos] ^= (byte) (1 + rnd.nextInt(255));
            assertRejected(bad);
        }
        for (int cut : new int[] {0, 3, 12, 20, good.length / 2, good.length - 8, good.length - 1}) {
            assertRejected(Arrays.copyOf(good, cut));
        }
    }

    @Test
    void aStreamWithAnUnknownTableIsRejected() throws IOException {
        TableSpec<String> spec = TableSpec.of("other", String.class, s -> s);
        StateStore other = StateStore.create(List.of(spec), scheduler, executor);
        try (StateTxn txn = other.begin(1)) {
            txn.put(spec, "x");
            txn.commit();
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        other.snapshot().writeTo(out, Codec.of(new TableCodec<>(spec, s -> s.getBytes(), String::new)));
        assertThrows(IOException.class, () -> target.restore(new ByteArrayInputStream(out.toByteArray()), Fixtures.CODEC));
    }

    private void assertRejected(byte[] bad) {
        assertThrows(IOException.class, () -> target.restore(new ByteArrayInputStream(bad), Fixtures.CODEC));
        StateSnapshot s = target.snapshot();
        assertEquals(5, s.latestIndex());
        assertEquals(List.of(new Node("keep", "me")), s.all(NODES).toList());
        assertEquals(List.<Alloc>of(), s.all(ALLOCS).toList());
    }
}
