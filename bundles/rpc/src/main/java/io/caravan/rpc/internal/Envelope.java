package io.caravan.rpc.internal;

/**
 * What travels in one WebSocket message: a request (method and body), its response (body) or its error (code,
 * field, message), matched by the id the caller chose. {@code hops} counts forwards, so two servers that each take
 * the other for the leader cannot bounce a call forever.
 */
record Envelope(int kind, long id, String method, int hops, byte[] body, String code, String field,
                String message) {
    static final int REQUEST = 1;
    static final int RESPONSE = 2;
    static final int ERROR = 3;

    static Envelope request(long id, String method, int hops, byte[] body) {
        return new Envelope(REQUEST, id, method, hops, body, null, null, null);
    }

    static Envelope response(long id, byte[] body) {
        return new Envelope(RESPONSE, id, null, 0, body, null, null, null);
    }

    static Envelope error(long id, String code, String field, String message) {
        return new Envelope(ERROR, id, null, 0, null, code, field, message);
    }
}
