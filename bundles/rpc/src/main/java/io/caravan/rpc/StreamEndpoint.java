package io.caravan.rpc;

import java.util.Objects;

/**
 * One streaming RPC endpoint: its name, the request the stream opens with, who may open it, and the handler, which
 * takes the stream over. Served by whichever agent receives it ({@link Endpoint.Routing#LOCAL}).
 */
public record StreamEndpoint<Q>(String name, Class<Q> request, Endpoint.Callers callers, Handler<Q> handler) {

    public StreamEndpoint {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(callers, "callers");
        Objects.requireNonNull(handler, "handler");
    }

    /**
     * Serves one stream: must return quickly, handing the stream to whatever produces and consumes its frames. A
     * handler that throws fails the stream with its error ({@link io.caravan.api.CaravanException} as it is).
     */
    @FunctionalInterface
    public interface Handler<Q> {
        void open(Q request, RpcStream stream);
    }
}
