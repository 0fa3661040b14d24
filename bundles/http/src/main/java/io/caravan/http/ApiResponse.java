package io.caravan.http;

/**
 * A route's answer: the object to write as JSON ({@code null} writes an empty body, as Nomad does) and the query
 * metadata that becomes the {@code X-Nomad-*} headers.
 */
public record ApiResponse(int status, Object body, QueryMeta meta) {

    public static ApiResponse ok(Object body) {
        return new ApiResponse(200, body, QueryMeta.LOCAL);
    }

    public static ApiResponse ok(Object body, QueryMeta meta) {
        return new ApiResponse(200, body, meta);
    }

    /** 200 with an empty body (e.g. {@code PUT /v1/agent/reload}). */
    public static ApiResponse empty() {
        return new ApiResponse(200, null, QueryMeta.LOCAL);
    }
}
