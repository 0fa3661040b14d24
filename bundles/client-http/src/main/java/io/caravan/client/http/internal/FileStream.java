package io.caravan.client.http.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectWriter;
import io.caravan.api.json.NomadJson;
import io.caravan.http.BodyWriter;
import io.caravan.http.StreamingBody;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A file or log stream as a response body, pumped by the shared scheduler: no thread is held per stream. Each turn
 * reads what is new (64 KiB per frame, as Nomad's framer), writes it while the client keeps up, and comes back at
 * once when more is waiting, or after {@link #POLL_MILLIS} when following an idle file. Framed streams send a
 * heartbeat {@code {}} after a second without data, which is also how a departed client is noticed.
 */
final class FileStream implements StreamingBody {
    static final int FRAME_SIZE = 64 * 1024;
    static final long POLL_MILLIS = 250;
    static final long HEARTBEAT_MILLIS = 1000;
    /** Bytes one turn may write before yielding the scheduler thread to other streams. */
    private static final int TURN_BUDGET = 1024 * 1024;
    /** How soon to retry when the client has not taken the last write yet. */
    private static final long BACKOFF_MILLIS = 20;
    private static final byte[] HEARTBEAT = "{}".getBytes(StandardCharsets.US_ASCII);
    private static final ObjectWriter JSON = NomadJson.writer(false);
    private static final Logger LOG = LoggerFactory.getLogger(FileStream.class);

    private final String allocId;
    private final StreamSource source;
    private final boolean plain;
    private final ScheduledExecutorService scheduler;
    private final LongSupplier clock;
    private final Set<FileStream> running;
    private final AtomicBoolean ended = new AtomicBoolean();

    private volatile BodyWriter out;
    /** Bytes the client has not taken yet (only touched by turns, which never overlap). */
    private byte[] pending;
    private long lastWrite;

    /** @param running where the stream is while it runs (added when it starts, removed however it ends) */
    FileStream(String allocId, StreamSource source, boolean plain, ScheduledExecutorService scheduler,
               LongSupplier millis, Set<FileStream> running) {
        this.running = running;
        this.allocId = allocId;
        this.source = source;
        this.plain = plain;
        this.scheduler = scheduler;
        this.clock = millis;
    }

    @Override
    public String contentType() {
        return plain ? "text/plain; charset=utf-8" : "application/json";
    }

    @Override
    public void start(BodyWriter writer) {
        this.out = writer;
        this.lastWrite = clock.getAsLong();
        running.add(this);
        schedule(0);
    }

    /** One turn; runs on the scheduler only, never concurrently with itself. */
    void pump() {
        if (out.closed()) {
            finish();
            return;
        }
        try {
            int written = 0;
            while (true) {
                if (pending != null) {
                    if (!out.write(pending)) {
                        schedule(BACKOFF_MILLIS);
                        return;
                    }
                    written += pending.length;
                    pending = null;
                    lastWrite = clock.getAsLong();
                }
                if (written >= TURN_BUDGET) {
                    schedule(0);
                    return;
                }
                StreamSource.Piece piece = source.read(FRAME_SIZE);
                if (piece == null) {
                    break;
                }
                byte[] bytes = encode(piece);
                if (bytes.length > 0) {
                    pending = bytes;
                }
            }
            if (source.done()) {
                finish();
                return;
            }
            if (!plain && clock.getAsLong() - lastWrite >= HEARTBEAT_MILLIS) {
                pending = HEARTBEAT;
                schedule(0);
                return;
            }
            schedule(POLL_MILLIS);
        } catch (IOException | RuntimeException e) {
            LOG.atDebug().addKeyValue("alloc_id", allocId).addKeyValue("error", e.toString()).log("stream ended");
            finish();
        }
    }

    private byte[] encode(StreamSource.Piece piece) throws JsonProcessingException {
        if (plain) {
            return piece.data();
        }
        return JSON.writeValueAsBytes(new StreamFrame(piece.offset(), piece.data(), piece.file(), piece.event()));
    }

    private void finish() {
        if (ended.compareAndSet(false, true)) {
            source.close();
            out.close();
            running.remove(this);
        }
    }

    /** Ends the stream from outside (the component is going away); a turn in progress may still write once. */
    void abort() {
        BodyWriter writer = out;
        if (writer != null) {
            writer.close();
        }
        if (ended.compareAndSet(false, true)) {
            source.close();
            running.remove(this);
        }
    }

    private void schedule(long delayMillis) {
        try {
            scheduler.schedule(this::pump, delayMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            finish(); // the component is going away
        }
    }
}
