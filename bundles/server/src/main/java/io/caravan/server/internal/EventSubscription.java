package io.caravan.server.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import io.caravan.http.BodyWriter;
import io.caravan.http.StreamingBody;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One subscriber of {@code /v1/event/stream}: a cursor into the broker's {@link EventBuffer} and a response body. No
 * thread is held: a turn runs on the broker's pool when there is something to send (a new batch, a heartbeat, a
 * close), writes while the client keeps up, and ends. A client that falls so far behind that the buffer overwrote its
 * cursor is closed with Nomad's error, and must resubscribe (from the last index it saw).
 */
final class EventSubscription implements StreamingBody {
    /** Nomad's words when the server ends a subscription (too slow, token revoked, state restored). */
    static final String CLOSED = "subscription closed by server, client should resubscribe";
    private static final byte[] HEARTBEAT = "{}\n".getBytes(StandardCharsets.US_ASCII);
    /** Batches one turn reads at most before writing them as one chunk. */
    private static final int BATCHES_PER_READ = 64;
    /** Chunks one turn writes at most before yielding the pool to other subscribers. */
    private static final int CHUNKS_PER_TURN = 16;
    private static final long BACKOFF_MILLIS = 20;
    private static final Logger LOG = LoggerFactory.getLogger(EventSubscription.class);

    private final EventBroker broker;
    private final EventFilter filter;
    private final EventBroker.TokenWatch token;
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final AtomicBoolean ended = new AtomicBoolean();
    private volatile BodyWriter out;
    private volatile boolean heartbeatDue;
    private volatile String closeReason;
    /** The sequence number of the next batch to send; only turns touch it (they never overlap). */
    private long cursor;
    /** Bytes the client has not taken yet. */
    private byte[] pending;

    EventSubscription(EventBroker broker, EventFilter filter, long cursor, EventBroker.TokenWatch token) {
        this.broker = broker;
        this.filter = filter;
        this.cursor = cursor;
        this.token = token;
    }

    @Override
    public String contentType() {
        return "application/json";
    }

    @Override
    public void start(BodyWriter writer) {
        this.out = writer;
        broker.added(this);
        wake();
    }

    EventBroker.TokenWatch token() {
        return token;
    }

    /** Something may be there to send: runs a turn unless one is running or scheduled. */
    void wake() {
        if (out != null && scheduled.compareAndSet(false, true)) {
            broker.run(this::turn, 0);
        }
    }

    void heartbeat() {
        heartbeatDue = true;
        wake();
    }

    /** Ends the stream with Nomad's error after what was already taken (best effort). */
    void close(String why) {
        LOG.atDebug().addKeyValue("reason", why).log("event subscription closed by the server");
        closeReason = CLOSED;
        wake();
    }

    /** One turn; turns never overlap (the {@code scheduled} flag). */
    private void turn() {
        BodyWriter writer = out;
        if (writer.closed()) {
            finish();
            return;
        }
        try {
            for (int chunk = 0; chunk < CHUNKS_PER_TURN; chunk++) {
                if (pending != null) {
                    if (!writer.write(pending)) {
                        if (cursor < broker.buffer().oldest() || closeReason != null) {
                            // Too slow: the buffer has moved past what it still has to take (or the server ends
                            // it); it cannot take the error text either.
                            LOG.atDebug().log("event subscriber too slow for the buffer: closed");
                            finish();
                            return;
                        }
                        broker.run(this::turn, BACKOFF_MILLIS); // still scheduled: the retry is this turn's
                        return;
                    }
                    pending = null;
                }
                if (closeReason != null) {
                    if (writer.ready()) {
                        writer.write(closeReason.getBytes(StandardCharsets.UTF_8));
                    }
                    finish();
                    return;
                }
                EventBuffer.Read read = broker.buffer().read(cursor, BATCHES_PER_READ);
                if (read.dropped()) {
                    closeReason = CLOSED;
                    continue;
                }
                if (read.batches().isEmpty()) {
                    if (heartbeatDue) {
                        heartbeatDue = false;
                        pending = HEARTBEAT;
                        continue;
                    }
                    break;
                }
                pending = encode(read.batches());
                cursor = read.batches().get(read.batches().size() - 1).seq() + 1;
                if (pending != null) {
                    heartbeatDue = false; // data shows the stream is alive
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.atDebug().addKeyValue("error", e.toString()).log("event stream ended");
            finish();
            return;
        }
        scheduled.set(false);
        if (pending != null || cursor < broker.buffer().next() || heartbeatDue || closeReason != null) {
            wake(); // more arrived, or the turn budget ran out
        }
    }

    /** The lines of the batches this subscriber sees, or null when it sees none of their events. */
    private byte[] encode(List<EventBuffer.Batch> batches) throws IOException {
        ByteArrayOutputStream bytes = null;
        for (EventBuffer.Batch batch : batches) {
            boolean first = true;
            for (EventBuffer.Encoded e : batch.events()) {
                if (!filter.matches(e.event())) {
                    continue;
                }
                byte[] json;
                try {
                    json = e.json();
                } catch (com.fasterxml.jackson.core.JsonProcessingException ex) {
                    // A model that cannot be written is a bug; the stream goes on without that event.
                    LOG.atError().addKeyValue("index", batch.index()).addKeyValue("topic", e.event().topic())
                            .setCause(ex).log("event not encodable; left out of the stream");
                    continue;
                }
                if (bytes == null) {
                    bytes = new ByteArrayOutputStream(1024);
                }
                if (first) {
                    bytes.write(("{\"Index\":" + batch.index() + ",\"Events\":[").getBytes(StandardCharsets.US_ASCII));
                    first = false;
                } else {
                    bytes.write(',');
                }
                bytes.write(json);
            }
            if (!first) {
                bytes.write("]}\n".getBytes(StandardCharsets.US_ASCII));
            }
        }
        return bytes == null ? null : bytes.toByteArray();
    }

    private void finish() {
        if (ended.compareAndSet(false, true)) {
            out.close();
            broker.removed(this);
        }
    }
}
