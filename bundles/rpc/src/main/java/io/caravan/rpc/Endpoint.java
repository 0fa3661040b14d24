package io.caravan.rpc;

import java.util.Objects;
import java.util.concurrent.CompletionStage;

/**
 * One RPC endpoint: Nomad's name ({@code Node.Register}), its request and response records, where it must run, who
 * may call it, and the handler. Request and response travel as CBOR in the servers' internal JSON shape.
 */
public record Endpoint<Q, R>(String name, Class<Q> request, Class<R> response, Routing routing, Callers callers,
                             Handler<Q, R> handler) {

    public Endpoint {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(response, "response");
        Objects.requireNonNull(routing, "routing");
        Objects.requireNonNull(callers, "callers");
        Objects.requireNonNull(handler, "handler");
    }

    /** An endpoint any agent may call (authorization, if any, is the handler's: a node secret, a token). */
    public Endpoint(String name, Class<Q> request, Class<R> response, Routing routing, Handler<Q, R> handler) {
        this(name, request, response, routing, Callers.ANY, handler);
    }

    /** Who may call an endpoint over the network (calls made inside the agent always may). */
    public enum Callers {
        ANY,
        /**
         * Only servers: over TLS ({@code tls.rpc}), connections whose certificate names {@code server.<region>.nomad};
         * over plain text, connections that proved they hold the cluster's gossip key when they connected. Plain text
         * without a gossip key proves nothing and every connection counts as a server's, as Nomad without TLS.
         */
        SERVERS
    }

    /** Where a call is served. */
    public enum Routing {
        /** By whichever agent receives it (reads served from local state, agent-local operations). */
        LOCAL,
        /** By the Raft leader: a server that is not forwards it there, waiting a while for an election if needed. */
        LEADER
    }

    /** Serves one call; failures complete the stage with a {@link io.caravan.api.CaravanException}. */
    @FunctionalInterface
    public interface Handler<Q, R> {
        CompletionStage<R> handle(Q request);
    }
}
