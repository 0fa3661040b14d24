package io.caravan.http;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * An API call carried over RPC to another agent ({@value #METHOD}), which runs it against its own HTTP listener: a
 * client-only agent forwards calls it has no route for to a server, and a server forwards {@code /v1/client/*} calls
 * to the client node that holds the allocation, through the connection that node opened.
 *
 * <p>Calls whose answer goes on (a followed log, {@code fs/stream}) travel as an RPC stream, {@value #STREAM}; a
 * WebSocket ({@code alloc exec}) as {@value #WEBSOCKET}. Both open with the {@link Call}; the first frame back is
 * the {@link Answer}'s head ({@link Answer#encode}): status and headers, with the body when the call failed. Then
 * come the response body's bytes, or the WebSocket's text messages both ways, one per frame, until either side
 * closes.
 */
public final class HttpForward {
    public static final String METHOD = "Agent.HTTP";
    /** A call whose response body streams. */
    public static final String STREAM = "Agent.HTTPStream";
    /** A WebSocket: the call is its upgrade request; a {@code 101} head means it is open. */
    public static final String WEBSOCKET = "Agent.WebSocket";
    /**
     * Marks a call one server relayed to another (to the leader, to the server that holds a node's connection), so
     * that it is served there and not relayed again. Internal: the HTTP listener ignores it on callers' requests; only
     * a call this agent runs for another over RPC carries it.
     */
    public static final String FORWARDED = "X-Caravan-Forwarded";
    private static final String TOKEN = "X-Nomad-Token";
    private static final com.fasterxml.jackson.databind.ObjectMapper HEAD = new com.fasterxml.jackson.databind.ObjectMapper();

    private HttpForward() {
    }

    /** One API call as it arrived: method, path with query string, the headers that matter, body. */
    public record Call(String method, String uri, Map<String, String> headers, byte[] body) {

        /** The call {@code request} describes. */
        public static Call of(ApiRequest request) {
            Map<String, String> headers = new LinkedHashMap<>();
            // The caller's token whichever way it came (X-Nomad-Token or Authorization: Bearer), for the next agent
            request.token().ifPresent(token -> headers.put(TOKEN, token));
            request.header("Content-Type").ifPresent(v -> headers.put("Content-Type", v));
            String query = request.rawQuery();
            return new Call(request.method(), request.path() + (query.isEmpty() ? "" : "?" + query), headers,
                    request.rawBody());
        }

        /**
         * The same call carrying {@code token} as its {@code X-Nomad-Token} (a token that came another way, such as
         * the first frame of a {@code ws_handshake} WebSocket); null or empty: the call as it is.
         */
        public Call withToken(String token) {
            if (token == null || token.isEmpty()) {
                return this;
            }
            Map<String, String> with = new LinkedHashMap<>(headers);
            with.put(TOKEN, token);
            return new Call(method, uri, with, body);
        }

        /** The same call, {@linkplain #FORWARDED marked} as relayed by a server. */
        public Call forwarded() {
            Map<String, String> marked = new LinkedHashMap<>(headers);
            marked.put(FORWARDED, "1");
            return new Call(method, uri, marked, body);
        }
    }

    /** What the other agent answered. */
    public record Answer(int status, Map<String, String> headers, byte[] body) {

        /** As a stream's first frame. */
        public byte[] encode() {
            try {
                return HEAD.writeValueAsBytes(this);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        /** A stream's first frame. @throws IllegalArgumentException when it is not an answer's head */
        public static Answer decode(byte[] frame) {
            try {
                return HEAD.readValue(frame, Answer.class);
            } catch (java.io.IOException e) {
                throw new IllegalArgumentException("not an HTTP answer: " + e.getMessage(), e);
            }
        }

        /** Whether the call succeeded: 2xx, or {@code 101} for a WebSocket. */
        public boolean ok() {
            return status == 101 || status / 100 == 2;
        }

        public Optional<String> header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                    .map(Map.Entry::getValue).findFirst();
        }

        /** The answer as this agent writes it: same status, {@code X-Nomad-*} headers, content type and bytes. */
        public ApiResponse toResponse() {
            Object out = body == null || body.length == 0 ? null
                    : new RawBody(header("Content-Type").orElse("application/octet-stream"), body);
            QueryMeta meta = header("X-Nomad-Index").map(index -> new QueryMeta(Long.parseLong(index),
                    Boolean.parseBoolean(header("X-Nomad-Knownleader").orElse("true")),
                    Long.parseLong(header("X-Nomad-Lastcontact").orElse("0")),
                    header("X-Nomad-Nexttoken").orElse(null))).orElse(null);
            return new ApiResponse(status, out, meta);
        }
    }
}
