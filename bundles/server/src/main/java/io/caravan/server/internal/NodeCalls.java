package io.caravan.server.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.http.ApiRequest;
import io.caravan.http.ApiResponse;
import io.caravan.http.HttpForward;
import io.caravan.rpc.Rpc;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A server's calls to a client node go through the connection that node opened, which may be to another server: when
 * it is not here, the API call goes to the other servers in turn (once: a relayed call is marked
 * {@link HttpForward#FORWARDED}, and a server that receives a marked call does not relay it again), and the first
 * that holds the connection answers.
 */
final class NodeCalls {
    private static final Logger LOG = LoggerFactory.getLogger(NodeCalls.class);
    static final String FORWARDED = HttpForward.FORWARDED;
    /** What {@link Rpc#callNode} says when the node has no connection to this server. */
    private static final String NOT_CONNECTED = "no RPC connection to this server";

    private NodeCalls() {
    }

    /**
     * {@code direct}, the call made through the node's connection here; when the node has none here, {@code request}
     * relayed to {@code servers} (the region's servers' RPC addresses).
     */
    static CompletableFuture<ApiResponse> orViaOtherServers(CompletionStage<ApiResponse> direct, ApiRequest request,
                                                            Rpc rpc, List<String> servers) {
        return direct.toCompletableFuture().exceptionallyCompose(error -> {
            Throwable t = unwrap(error);
            if (!connectedElsewhere(t, request)) {
                return CompletableFuture.failedFuture(t);
            }
            HttpForward.Call call = HttpForward.Call.of(request).forwarded();
            return relay(request, servers, t, server -> rpc.callAt(server, HttpForward.METHOD, call,
                    HttpForward.Answer.class).toCompletableFuture(), NodeCalls::notConnectedThere, answer -> {
                    }).thenApply(HttpForward.Answer::toResponse);
        });
    }

    /** {@code error}, from the call through this server, says the node's connection may be at another server. */
    static boolean connectedElsewhere(Throwable error, ApiRequest request) {
        return error instanceof CaravanException c && c.code() == ErrorCode.NOT_FOUND
                && request.header(FORWARDED).isEmpty();
    }

    /** The other server's answer says the node is not connected there either. */
    static boolean notConnectedThere(HttpForward.Answer answer) {
        return answer.status() == 404 && answer.body() != null
                && new String(answer.body(), StandardCharsets.UTF_8).contains(NOT_CONNECTED);
    }

    /**
     * Asks each server in turn ({@code ask}); the first answer that is not "not connected here" ({@code notThere};
     * those are {@code discard}ed) is the answer. When none answers: {@code notHere} (this server's own 404) if every
     * server said the node is not connected to it; otherwise a 500 naming the servers that failed and why, logged at
     * WARN, since a 404 would hide a broken relay behind "no such connection".
     */
    static <T> CompletableFuture<T> relay(ApiRequest request, List<String> servers, Throwable notHere,
                                          Function<String, CompletableFuture<T>> ask, Predicate<T> notThere,
                                          Consumer<T> discard) {
        return relay(request, servers, 0, notHere, ask, notThere, discard, new ArrayList<>());
    }

    private static <T> CompletableFuture<T> relay(ApiRequest request, List<String> servers, int i, Throwable notHere,
                                                  Function<String, CompletableFuture<T>> ask, Predicate<T> notThere,
                                                  Consumer<T> discard, List<String> failures) {
        if (i >= servers.size()) {
            if (failures.isEmpty()) {
                return CompletableFuture.failedFuture(notHere);
            }
            String why = "the node's connection is not at this server, and relaying to the others failed: "
                    + String.join("; ", failures);
            LOG.atWarn().addKeyValue("method", request.method()).addKeyValue("path", request.path())
                    .addKeyValue("failures", failures).log("relay to the node's server failed");
            return CompletableFuture.failedFuture(new CaravanException(ErrorCode.INTERNAL, why));
        }
        String server = servers.get(i);
        CompletableFuture<T> asked;
        try {
            asked = ask.apply(server);
        } catch (RuntimeException e) {
            asked = CompletableFuture.failedFuture(e);
        }
        return asked.handle((answer, error) -> {
            if (error != null) {
                failures.add(server + ": " + reason(error));
            } else if (notThere.test(answer)) {
                discard.accept(answer);
            } else {
                return CompletableFuture.completedFuture(answer);
            }
            return relay(request, servers, i + 1, notHere, ask, notThere, discard, failures);
        }).thenCompose(Function.identity());
    }

    static Throwable unwrap(Throwable error) {
        Throwable t = error;
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    private static String reason(Throwable error) {
        Throwable t = unwrap(error);
        return t.getMessage() != null ? t.getMessage() : t.getClass().getSimpleName();
    }
}
