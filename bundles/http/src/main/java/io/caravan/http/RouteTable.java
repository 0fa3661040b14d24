package io.caravan.http;

import java.util.concurrent.CompletableFuture;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Where routes are declared, each with the {@link ApiEndpoint} it serves (its name and ACL rule): the dispatcher
 * authenticates the caller, checks the rule and counts the call before the handler runs. A pattern is a path of
 * literal segments and {@code {name}} parameters; a last parameter written {@code {name*}} takes the rest of the
 * path, slashes included (Nomad's IDs can contain them).
 */
@ProviderType
public interface RouteTable {
    RouteTable routeAsync(String method, String pattern, ApiEndpoint endpoint, AsyncHandler handler);

    default RouteTable route(String method, String pattern, ApiEndpoint endpoint, Handler handler) {
        return routeAsync(method, pattern, endpoint, request -> CompletableFuture.completedFuture(
                handler.handle(request)));
    }

    /** A read that may block ({@code index}/{@code wait}); see {@link AsyncHandler}. */
    default RouteTable getAsync(String pattern, ApiEndpoint endpoint, AsyncHandler handler) {
        return routeAsync("GET", pattern, endpoint, handler);
    }

    default RouteTable get(String pattern, ApiEndpoint endpoint, Handler handler) {
        return route("GET", pattern, endpoint, handler);
    }

    /** Nomad accepts PUT and POST alike for writes. */
    default RouteTable write(String pattern, ApiEndpoint endpoint, Handler handler) {
        return route("PUT", pattern, endpoint, handler).route("POST", pattern, endpoint, handler);
    }

    /** {@link #write} of a handler whose answer may come later. */
    default RouteTable writeAsync(String pattern, ApiEndpoint endpoint, AsyncHandler handler) {
        return routeAsync("PUT", pattern, endpoint, handler).routeAsync("POST", pattern, endpoint, handler);
    }

    default RouteTable delete(String pattern, ApiEndpoint endpoint, Handler handler) {
        return route("DELETE", pattern, endpoint, handler);
    }

    default RouteTable deleteAsync(String pattern, ApiEndpoint endpoint, AsyncHandler handler) {
        return routeAsync("DELETE", pattern, endpoint, handler);
    }
}
