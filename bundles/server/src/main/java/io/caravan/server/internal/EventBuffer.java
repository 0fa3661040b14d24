package io.caravan.server.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * The broker's memory: the last {@code size} batches of events (one per Raft index that produced any) in a ring.
 * Each batch gets a sequence number; a subscriber's cursor is the sequence number it reads next, so reading costs no
 * copy and no per-subscriber queue. A cursor the ring has overwritten belongs to a subscriber too slow to keep up.
 */
final class EventBuffer {

    /** One Raft index's events, each already encoded as JSON once for every subscriber. */
    record Batch(long seq, long index, List<Encoded> events) {}

    /**
     * An event and its JSON, written when a subscriber first sends it rather than on the apply thread: most events of a
     * busy cluster are never streamed to anyone.
     */
    static final class Encoded {
        private static final com.fasterxml.jackson.databind.ObjectWriter JSON = io.caravan.api.json.NomadJson
                .writer(false);
        private final Events.Event event;
        private volatile byte[] json;

        Encoded(Events.Event event) {
            this.event = event;
        }

        Events.Event event() {
            return event;
        }

        /** The event's JSON (the same bytes every time). */
        byte[] json() throws com.fasterxml.jackson.core.JsonProcessingException {
            byte[] j = json;
            if (j == null) {
                j = JSON.writeValueAsBytes(event);
                json = j;
            }
            return j;
        }
    }

    /** What a read found: the batches from the cursor on, or that the cursor fell out of the ring. */
    record Read(List<Batch> batches, boolean dropped) {
        static final Read DROPPED = new Read(List.of(), true);
    }

    private final Batch[] ring;
    /** The sequence number the next batch gets. */
    private long next;
    /** No batch before this one is held (after a reset). */
    private long floor;

    EventBuffer(int size) {
        if (size < 1) {
            throw new IllegalArgumentException("event buffer size must be at least 1, not " + size);
        }
        this.ring = new Batch[size];
    }

    synchronized void append(long index, List<Encoded> events) {
        Batch last = next == floor ? null : at(next - 1);
        if (last != null && index <= last.index()) {
            throw new IllegalArgumentException("event index " + index + " does not advance past " + last.index());
        }
        ring[(int) (next % ring.length)] = new Batch(next, index, List.copyOf(events));
        next++;
    }

    /** The sequence number of the oldest batch still held. */
    synchronized long oldest() {
        return Math.max(floor, next - ring.length);
    }

    /** The sequence number the next appended batch will get. */
    synchronized long next() {
        return next;
    }

    /**
     * Where a subscriber asking for {@code index} starts (Nomad's rule): the first batch at or after that index; when
     * the buffer no longer holds it, the oldest it holds; 0 means the whole backlog; beyond the newest, the next to come.
     */
    synchronized long cursorFor(long index) {
        for (long seq = oldest(); seq < next; seq++) {
            if (at(seq).index() >= index) {
                return seq;
            }
        }
        return next;
    }

    /** Up to {@code max} batches from {@code cursor} on (none when it is caught up). */
    synchronized Read read(long cursor, int max) {
        if (cursor < oldest()) {
            return Read.DROPPED;
        }
        if (cursor >= next) {
            return new Read(List.of(), false);
        }
        int n = (int) Math.min(max, next - cursor);
        List<Batch> out = new ArrayList<>(n);
        for (long seq = cursor; seq < cursor + n; seq++) {
            out.add(at(seq));
        }
        return new Read(out, false);
    }

    /** Forgets every batch (the state was replaced by a snapshot); subscribers' cursors all become dropped. */
    synchronized void reset() {
        java.util.Arrays.fill(ring, null);
        floor = next;
    }

    private Batch at(long seq) {
        return ring[(int) (seq % ring.length)];
    }
}
