package io.caravan.http;

import java.util.Objects;

/**
 * A response body written as is rather than as JSON (Nomad's {@code /v1/client/fs/cat} and friends). Put it in
 * {@link ApiResponse#body()}, or use {@link ApiResponse#raw(String, byte[])}. The servlet also sends
 * {@code X-Content-Type-Options: nosniff}, so a browser does not render it as something else.
 */
public record RawBody(String contentType, byte[] bytes) {
    public RawBody {
        Objects.requireNonNull(contentType, "contentType");
        Objects.requireNonNull(bytes, "bytes");
    }
}
