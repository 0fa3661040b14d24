package io.caravan.http;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Where routes are declared. A pattern is a path of literal segments and {@code {name}} parameters; a last
 * parameter written {@code {name*}} takes the rest of the path, slashes included (Nomad's IDs can contain them).
 */
@ProviderType
public interface RouteTable {
    RouteTable route(String method, String pattern, Handler handler);

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
