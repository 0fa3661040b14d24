package io.caravan.http.internal;

import java.io.IOException;

import io.caravan.http.BodyWriter;
import io.caravan.http.StreamingBody;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link BodyWriter} over the servlet's non-blocking output: the request is parked on {@link AsyncContext}, the
 * producer writes from its own threads when the output is ready, and nothing waits for a slow client. Every use of
 * the output stream holds this object's lock, so container callbacks and producer writes never interleave.
 */
final class StreamingResponse implements BodyWriter, WriteListener, AsyncListener {
    private static final Logger LOG = LoggerFactory.getLogger(StreamingResponse.class);

    private final AsyncContext async;
    private final ServletOutputStream out;
    private boolean headersSent;
    private boolean closed;
    private boolean completeWhenReady;
    private boolean completed;

    private StreamingResponse(AsyncContext async, ServletOutputStream out) {
        this.async = async;
        this.out = out;
    }

    /** Takes over the response (status and headers already set) and hands the writer to {@code body}. */
    static void start(HttpServletRequest request, HttpServletResponse response, StreamingBody body)
            throws IOException {
        response.setContentType(body.contentType());
        response.setHeader("X-Content-Type-Options", "nosniff");
        response.setHeader("Cache-Control", "no-store");
        AsyncContext async = request.isAsyncStarted() ? request.getAsyncContext() : request.startAsync();
        async.setTimeout(0);
        StreamingResponse writer = new StreamingResponse(async, response.getOutputStream());
        async.addListener(writer);
        synchronized (writer) {
            writer.out.setWriteListener(writer);
        }
        try {
            body.start(writer);
        } catch (RuntimeException e) {
            LOG.atError().addKeyValue("path", request.getRequestURI()).addKeyValue("error", e.toString()).setCause(e)
                    .log("stream failed to start");
            writer.close();
        }
    }

    @Override
    public synchronized boolean ready() {
        if (closed) {
            return false;
        }
        try {
            return out.isReady();
        } catch (RuntimeException e) {
            fail(e);
            return false;
        }
    }

    @Override
    public synchronized boolean write(byte[] bytes) throws IOException {
        if (closed) {
            throw new IOException("stream closed");
        }
        try {
            if (!out.isReady()) {
                return false;
            }
            headersSent = true;
            out.write(bytes);
            if (out.isReady()) {
                out.flush();
            }
            return true;
        } catch (IOException | RuntimeException e) {
            fail(e);
            throw e instanceof IOException io ? io : new IOException(e);
        }
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        boolean idle;
        try {
            idle = out.isReady();
        } catch (RuntimeException e) {
            idle = true;
        }
        if (idle) {
            complete();
        } else {
            completeWhenReady = true; // a write is still on its way: onWritePossible completes after it
        }
    }

    @Override
    public synchronized boolean closed() {
        return closed;
    }

    @Override
    public synchronized void onWritePossible() throws IOException {
        if (completeWhenReady) {
            complete();
        } else if (!headersSent && !closed) {
            // Send status and headers at once: a follower sees 200 before the first byte of the file.
            headersSent = true;
            out.flush();
        }
    }

    @Override
    public synchronized void onError(Throwable error) {
        fail(error);
    }

    private void fail(Throwable error) {
        LOG.atDebug().addKeyValue("error", error.toString()).log("stream ended by the client");
        closed = true;
        complete();
    }

    private void complete() {
        if (completed) {
            return;
        }
        completed = true;
        try {
            async.complete();
        } catch (IllegalStateException e) {
            // already completed by the container (client gone)
        }
    }

    @Override
    public void onComplete(AsyncEvent event) {
        synchronized (this) {
            closed = true;
            completed = true;
        }
    }

    @Override
    public void onTimeout(AsyncEvent event) {
        synchronized (this) {
            closed = true;
            complete();
        }
    }

    @Override
    public void onError(AsyncEvent event) {
        synchronized (this) {
            fail(event.getThrowable() == null ? new IOException("async error") : event.getThrowable());
        }
    }

    @Override
    public void onStartAsync(AsyncEvent event) {
        // not re-dispatched
    }
}
