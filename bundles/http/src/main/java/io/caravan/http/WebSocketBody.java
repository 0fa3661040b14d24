package io.caravan.http;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * An answer that turns the connection into a WebSocket (Nomad's {@code alloc exec}). Put it in
 * {@link ApiResponse#body()} of a GET: the servlet completes the upgrade handshake, then calls {@link #open} once.
 * Text messages only, as Nomad's frame protocols use. A request that is not a WebSocket upgrade is answered 400.
 */
@ConsumerType
public interface WebSocketBody {

    /**
     * The connection is open. Must return quickly: hand {@code peer} to whatever produces messages.
     *
     * @return what hears the peer's messages
     */
    Listener open(WebSocketPeer peer);

    /** Receives the peer's side of the conversation; called from the container's threads, one call at a time. */
    @ConsumerType
    interface Listener {

        /** One whole text message. */
        void text(String message);

        /** The peer closed the connection or went away; called once, and nothing after it. */
        void closed();
    }
}
