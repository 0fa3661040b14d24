package io.caravan.http;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * An API call carried over RPC to another agent ({@value #METHOD}), which runs it against its own HTTP listener: a
 * client-only agent forwards calls it has no route for to a server, and a server forwards {@code /v1/client/*} calls
 * to the client node that holds the allocation, through the connection that node opened.
 */
public final class HttpForward {
    public static final String METHOD = "Agent.HTTP";
    private static final String TOKEN = "X-Nomad-Token";

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
    }

    /** What the other agent answered. */
    public record Answer(int status, Map<String, String> headers, byte[] body) {

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
