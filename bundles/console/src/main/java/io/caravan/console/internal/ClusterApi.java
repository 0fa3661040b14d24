package io.caravan.console.internal;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.caravan.http.HttpForward;
import io.caravan.rpc.Rpc;

/**
 * Reads the cluster's state through the agent's own HTTP API, with the console user's token: a server runs the call
 * itself, a client-only agent asks its servers (as its API does for calls it has no route for). The answer and its
 * ACL checks are exactly what the API gives that token.
 */
final class ClusterApi {
    private static final long TIMEOUT_SECONDS = 5;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Rpc rpc;
    private final boolean server;
    private final Optional<String> token;

    ClusterApi(Rpc rpc, boolean server, Optional<String> token) {
        this.rpc = rpc;
        this.server = server;
        this.token = token;
    }

    /** Starts a GET; the stage fails with a message fit to show when the call does. */
    CompletableFuture<JsonNode> get(String uri) {
        if (rpc == null) {
            return CompletableFuture.failedFuture(new IllegalStateException("the RPC layer is not running"));
        }
        Map<String, String> headers = new LinkedHashMap<>();
        token.ifPresent(t -> headers.put("X-Nomad-Token", t));
        HttpForward.Call call = new HttpForward.Call("GET", uri, headers, new byte[0]);
        return (server ? rpc.dispatch(HttpForward.METHOD, call, HttpForward.Answer.class)
                : rpc.call(HttpForward.METHOD, call, HttpForward.Answer.class)).toCompletableFuture()
                .orTimeout(TIMEOUT_SECONDS, TimeUnit.SECONDS)
                .thenApply(answer -> {
                    String body = answer.body() == null ? "" : new String(answer.body(),
                            java.nio.charset.StandardCharsets.UTF_8);
                    if (!answer.ok()) {
                        throw new IllegalStateException(uri + ": " + answer.status() + " " + body.strip());
                    }
                    try {
                        return JSON.readTree(body);
                    } catch (java.io.IOException e) {
                        throw new IllegalStateException(uri + ": not JSON: " + e.getMessage());
                    }
                });
    }
}
