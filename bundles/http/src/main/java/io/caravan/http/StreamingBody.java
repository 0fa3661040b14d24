package io.caravan.http;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * A response body written over time (Nomad's file and log streams). Put it in {@link ApiResponse#body()}, or use
 * {@link ApiResponse#stream(StreamingBody)}. Once the status and headers are sent, the servlet calls
 * {@link #start(BodyWriter)}; from then on the body owns the response until it closes the writer or the client goes
 * away. No servlet thread waits meanwhile: the producer writes from its own threads, when {@link BodyWriter#ready()}.
 */
@ConsumerType
public interface StreamingBody {

    /** The {@code Content-Type} header, e.g. {@code application/json} or {@code text/plain; charset=utf-8}. */
    String contentType();

    /** Called once; must return quickly (hand {@code out} to a producer and return). */
    void start(BodyWriter out);
}
