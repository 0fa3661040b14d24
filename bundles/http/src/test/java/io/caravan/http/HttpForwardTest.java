package io.caravan.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

/** A forwarded call carries the caller's token to the next agent, whichever header it came in. */
class HttpForwardTest {

    record Request(Optional<String> token, Map<String, String> headers) implements ApiRequest {
        public String method() { return "PUT"; }
        public String path() { return "/v1/agent/reload"; }
        public String pathParam(String name) { return null; }
        public Optional<String> query(String name) { return Optional.empty(); }
        public List<String> queryAll(String name) { return List.of(); }
        public Optional<String> header(String name) { return Optional.ofNullable(headers.get(name)); }
        public QueryOptions options() { return null; }
        public <T> T body(Class<T> type) { throw new UnsupportedOperationException(); }
        public String remoteAddress() { return "127.0.0.1"; }
        public String rawQuery() { return "node_id=n-1"; }
    }

    @Test
    void aBearerTokenTravelsAsTheNomadTokenHeader() {
        HttpForward.Call call = HttpForward.Call.of(new Request(Optional.of("s3cret"),
                Map.of("Authorization", "Bearer s3cret", "Content-Type", "application/json", "Cookie", "c")));
        assertEquals(Map.of("X-Nomad-Token", "s3cret", "Content-Type", "application/json"), call.headers());
        assertEquals("/v1/agent/reload?node_id=n-1", call.uri());
    }

    @Test
    void anAnonymousCallCarriesNoToken() {
        HttpForward.Call call = HttpForward.Call.of(new Request(Optional.empty(), Map.of()));
        assertEquals(Map.of(), call.headers());
    }

    @Test
    void aTokenFromTheFirstFrameTravelsAsTheNomadTokenHeader() {
        HttpForward.Call call = HttpForward.Call.of(new Request(Optional.empty(), Map.of()));
        assertEquals(Map.of("X-Nomad-Token", "from-frame"), call.withToken("from-frame").headers());
        assertEquals(call, call.withToken(""));
        assertEquals(call, call.withToken(null));
    }
}
