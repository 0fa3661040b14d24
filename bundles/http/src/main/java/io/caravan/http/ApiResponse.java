package io.caravan.http;

/**
 * A route's answer: the object to write as JSON ({@code null} writes an empty body, as Nomad does) and the query
 * metadata that becomes the {@code X-Nomad-*} headers. A {@link RawBody} is written as its bytes, a
 * {@link StreamingBody} over time.
 */
public record ApiResponse(int status, Object body, QueryMeta meta) {

    public static ApiResponse ok(Object body) {
        return new ApiResponse(200, body, QueryMeta.LOCAL);
    }

    public static ApiResponse ok(Object body, QueryMeta meta) {
        return new ApiResponse(200, body, meta);
    }

    /** 200 with bytes written as they are, under {@code contentType} (no JSON). */
    public static ApiResponse raw(String contentType, byte[] bytes) {
        return new ApiResponse(200, new RawBody(contentType, bytes), QueryMeta.LOCAL);
    }

    /** 200 with a body written over time by {@code body}; see {@link StreamingBody}. */
    public static ApiResponse stream(StreamingBody body) {
        return new ApiResponse(200, body, QueryMeta.LOCAL);
    }

    /** 200 with an empty body (e.g. {@code PUT /v1/agent/reload}). */
    public static ApiResponse empty() {
        return new ApiResponse(200, null, QueryMeta.LOCAL);
    }
}
