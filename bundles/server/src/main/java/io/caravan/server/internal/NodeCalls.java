package io.caravan.server.internal;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.http.ApiRequest;
import io.caravan.http.ApiResponse;
import io.caravan.http.HttpForward;
import io.caravan.rpc.Rpc;

/**
 * A server's calls to a client node go through the connection that node opened, which may be to another server: when
 * it is not here, the API call goes to the other servers in turn (once: a relayed call is marked, and a server that
 * receives a marked call does not relay it again), and the first that holds the connection answers.
 */
final class NodeCalls {
    static final String FORWARDED = "X-Caravan-Forwarded";
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
            Throwable t = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
            boolean elsewhere = t instanceof CaravanException c && c.code() == ErrorCode.NOT_FOUND;
            if (!elsewhere || request.header(FORWARDED).isPresent()) {
                return CompletableFuture.failedFuture(t);
            }
            return viaOtherServers(rpc, marked(HttpForward.Call.of(request)), servers, 0, t)
                    .thenApply(HttpForward.Answer::toResponse);
        });
    }

    static HttpForward.Call marked(HttpForward.Call call) {
        Map<String, String> headers = new LinkedHashMap<>(call.headers());
        headers.put(FORWARDED, "1");
        return new HttpForward.Call(call.method(), call.uri(), headers, call.body());
    }

    /** The other server's answer says the node is not connected there either. */
    static boolean notConnectedThere(HttpForward.Answer answer) {
        return answer.status() == 404 && answer.body() != null
                && new String(answer.body(), StandardCharsets.UTF_8).contains(NOT_CONNECTED);
    }

    /** The node's connection is at another server: ask each in turn; the first that has it answers. */
    private static CompletableFuture<HttpForward.Answer> viaOtherServers(Rpc rpc, HttpForward.Call call,
                                                                         List<String> others, int i, Throwable last) {
        if (i >= others.size()) {
            return CompletableFuture.failedFuture(last);
        }
        return rpc.callAt(others.get(i), HttpForward.METHOD, call, HttpForward.Answer.class).toCompletableFuture()
                .thenCompose(answer -> notConnectedThere(answer) && i + 1 < others.size()
                        ? viaOtherServers(rpc, call, others, i + 1, last) : CompletableFuture.completedFuture(answer))
                .exceptionallyCompose(e -> viaOtherServers(rpc, call, others, i + 1, e));
    }
}
