package io.caravan.http;

import org.osgi.annotation.versioning.ProviderType;

/** The far end of a {@link WebSocketBody}'s connection. Thread-safe; messages go out in the order sent. */
@ProviderType
public interface WebSocketPeer {

    /** Queues a text message; dropped once the connection is closed. */
    void send(String text);

    /** Closes the connection normally (after the messages queued before). Idempotent. */
    void close();
}
