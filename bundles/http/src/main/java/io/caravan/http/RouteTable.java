package io.caravan.http;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Where routes are declared. A pattern is a path of literal segments and {@code {name}} parameters; a last
 * parameter written {@code {name*}} takes the rest of the path, slashes included (Nomad's IDs can contain them).
 */
@ProviderType
public interface RouteTable {
    RouteTable routeAsync(String method, String pattern, AsyncHandler handler);

    default RouteTable route(String method, String pattern, Handler handler) {
        return routeAsync(method, pattern, request -> java.util.concurrent.CompletableFuture.completedFuture(
                handler.handle(request)));
    }

    /** A read that may block ({@code index}/{@code wait}); see {@link AsyncHandler}. */
    default RouteTable getAsync(String pattern, AsyncHandler handler) {
        return routeAsync("GET", pattern, handler);
    }

    default RouteTable get(String pattern, Handler handler) {
        return route("GET", pattern, handler);
    }

    /** Nomad accepts PUT and POST alike for writes. */
    default RouteTable write(String pattern, Handler handler) {
        return route("PUT", pattern, handler).route("POST", pattern, handler);
    }

    default RouteTable delete(String pattern, Handler handler) {
        return route("DELETE", pattern, handler);
    }
}
