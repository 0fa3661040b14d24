package io.caravan.http;

import org.osgi.annotation.versioning.ProviderType;

/** The far end of a {@link WebSocketBody}'s connection. Thread-safe; messages go out in the order sent. */
@ProviderType
public interface WebSocketPeer {

    /** Queues a text message; dropped once the connection is closed. */
    void send(String text);

    /** Closes the connection normally (after the messages queued before). Idempotent. */
    void close();

    /**
     * Closes the connection with a status ({@code 1008}: policy violation, {@code 1011}: internal error) and a
     * reason the far end can show, after the messages queued before. Idempotent.
     */
    default void close(int status, String reason) {
        close();
    }
}
