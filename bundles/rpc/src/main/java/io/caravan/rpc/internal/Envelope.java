package io.caravan.rpc.internal;

/**
 * What travels in one WebSocket message: a request (method and body), its response (body) or its error (code,
 * field, message), matched by the id the caller chose. {@code hops} counts forwards, so two servers that each take
 * the other for the leader cannot bounce a call forever.
 *
 * <p>Streams ({@link ChannelStream}) travel as an open (method, body), data (body), a close (an error's code, field
 * and message, or none for a half-close) and credit (frames the receiver took, which the sender may send again). Their
 * id is the sender's own key for the stream: the opener's id, negated by the side that accepted it.
 */
record Envelope(int kind, long id, String method, int hops, byte[] body, String code, String field,
                String message, int credit) {
    static final int REQUEST = 1;
    static final int RESPONSE = 2;
    static final int ERROR = 3;
    static final int STREAM_OPEN = 4;
    static final int STREAM_DATA = 5;
    static final int STREAM_CLOSE = 6;
    static final int STREAM_CREDIT = 7;

    static Envelope request(long id, String method, int hops, byte[] body) {
        return new Envelope(REQUEST, id, method, hops, body, null, null, null, 0);
    }

    static Envelope response(long id, byte[] body) {
        return new Envelope(RESPONSE, id, null, 0, body, null, null, null, 0);
    }

    static Envelope error(long id, String code, String field, String message) {
        return new Envelope(ERROR, id, null, 0, null, code, field, message, 0);
    }

    static Envelope streamOpen(long id, String method, byte[] body) {
        return new Envelope(STREAM_OPEN, id, method, 0, body, null, null, null, 0);
    }

    static Envelope streamData(long id, byte[] body) {
        return new Envelope(STREAM_DATA, id, null, 0, body, null, null, null, 0);
    }

    /** A half-close when {@code code} is null; else the stream failed. */
    static Envelope streamClose(long id, String code, String field, String message) {
        return new Envelope(STREAM_CLOSE, id, null, 0, null, code, field, message, 0);
    }

    static Envelope streamCredit(long id, int frames) {
        return new Envelope(STREAM_CREDIT, id, null, 0, null, null, null, null, frames);
    }
}
