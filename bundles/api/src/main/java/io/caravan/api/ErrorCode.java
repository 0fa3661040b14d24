package io.caravan.api;

/**
 * What went wrong, as a client sees it. Each code maps to the HTTP status Nomad answers with; the HTTP layer
 * writes the message as a plain-text body.
 */
public enum ErrorCode {
    BAD_REQUEST(400),
    PERMISSION_DENIED(403),
    NOT_FOUND(404),
    METHOD_NOT_ALLOWED(405),
    CONFLICT(409),
    PAYLOAD_TOO_LARGE(413),
    UNSUPPORTED_MEDIA_TYPE(415),
    TOO_MANY_REQUESTS(429),
    INTERNAL(500),
    NO_LEADER(500),
    NOT_IMPLEMENTED(501);

    private final int httpStatus;

    ErrorCode(int httpStatus) {
        this.httpStatus = httpStatus;
    }

    public int httpStatus() {
        return httpStatus;
    }
}
