package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

class EventBufferTest {
    private final EventBuffer buffer = new EventBuffer(3);

    private void append(long... indexes) {
        for (long i : indexes) {
            buffer.append(i, List.of());
        }
    }

    private List<Long> indexesFrom(long cursor) {
        return buffer.read(cursor, 100).batches().stream().map(EventBuffer.Batch::index).toList();
    }

    @Test
    void aSubscriberResumesAtTheFirstBatchAtOrAfterItsIndex() {
        append(10, 12, 15);
        assertEquals(List.of(10L, 12L, 15L), indexesFrom(buffer.cursorFor(0)), "0: the whole buffer");
        assertEquals(List.of(12L, 15L), indexesFrom(buffer.cursorFor(12)), "at the index itself");
        assertEquals(List.of(15L), indexesFrom(buffer.cursorFor(13)), "between: the next one");
        long future = buffer.cursorFor(16);
        assertEquals(List.of(), indexesFrom(future), "beyond the newest: what comes next");
        append(20);
        assertEquals(List.of(20L), indexesFrom(future));
    }

    @Test
    void anIndexOlderThanTheBufferStartsAtTheOldestHeld() {
        append(1, 2, 3, 4, 5);
        assertEquals(List.of(3L, 4L, 5L), indexesFrom(buffer.cursorFor(1)));
    }

    @Test
    void aCursorTheRingOverwroteIsDropped() {
        append(1);
        long cursor = buffer.cursorFor(0);
        append(2, 3);
        assertFalse(buffer.read(cursor, 10).dropped(), "still held: 1, 2, 3");
        append(4);
        assertTrue(buffer.read(cursor, 10).dropped(), "1 was overwritten by 4");
        assertEquals(List.of(2L, 3L), buffer.read(cursor + 1, 2).batches().stream()
                .map(EventBuffer.Batch::index).toList(), "reads are bounded by max");
    }

    @Test
    void indexesMustAdvanceAndAResetDropsEveryCursor() {
        append(5);
        assertThrows(IllegalArgumentException.class, () -> buffer.append(5, List.of()));
        long caughtUp = buffer.next();
        long behind = buffer.cursorFor(0);
        buffer.reset();
        assertTrue(buffer.read(behind, 10).dropped());
        append(9);
        assertEquals(List.of(9L), indexesFrom(caughtUp), "a restore forgets the past, not what follows");
    }
}
