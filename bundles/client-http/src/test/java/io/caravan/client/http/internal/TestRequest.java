package io.caravan.client.http.internal;

import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.caravan.api.CaravanException;
import io.caravan.api.acl.Identity;
import io.caravan.api.json.NomadJson;
import io.caravan.http.ApiRequest;
import io.caravan.http.QueryOptions;

/** An {@link ApiRequest} from a raw query string, decoded as the HTTP bundle decodes it. */
final class TestRequest implements ApiRequest {
    private final String method;
    private final String allocId;
    private final Map<String, List<String>> query = new LinkedHashMap<>();
    private final String body;
    private final Map<String, String> headers = new LinkedHashMap<>();
    private Identity identity = Identity.UNRESTRICTED;
    private Map<String, Identity> tokens;

    private TestRequest(String method, String allocId, String rawQuery, String body) {
        this.method = method;
        this.allocId = allocId;
        this.body = body;
        if (rawQuery != null && !rawQuery.isEmpty()) {
            for (String pair : rawQuery.split("&")) {
                int eq = pair.indexOf('=');
                String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
                String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
                query.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
            }
        }
    }

    static TestRequest get(String allocId, String rawQuery) {
        return new TestRequest("GET", allocId, rawQuery, null);
    }

    static TestRequest put(String allocId, String body) {
        return new TestRequest("PUT", allocId, "", body);
    }

    /** With this header (names as given, matched without case). */
    TestRequest header(String name, String value) {
        headers.put(name.toLowerCase(java.util.Locale.ROOT), value);
        return this;
    }

    /** As {@code caller} (unrestricted unless set). */
    TestRequest as(Identity caller) {
        this.identity = caller;
        return this;
    }

    @Override
    public Identity identity() {
        return identity;
    }

    /** As the dispatcher leaves a ws_handshake call: unchecked, its token to be resolved from {@code tokens}. */
    TestRequest deferred(Map<String, Identity> tokens) {
        this.tokens = tokens;
        this.identity = Identity.anonymous(io.caravan.api.acl.Acl.NONE);
        return this;
    }

    @Override
    public boolean authenticationDeferred() {
        return tokens != null;
    }

    @Override
    public Identity authenticate(String token) {
        if (token == null || token.isEmpty()) {
            return Identity.anonymous(io.caravan.api.acl.Acl.NONE);
        }
        Identity caller = tokens == null ? null : tokens.get(token);
        if (caller == null) {
            throw new io.caravan.api.CaravanException(io.caravan.api.ErrorCode.PERMISSION_DENIED,
                    "ACL token not found");
        }
        return caller;
    }

    @Override
    public String method() {
        return method;
    }

    @Override
    public String path() {
        return "/v1/client/test/" + allocId;
    }

    @Override
    public String pathParam(String name) {
        if (!name.equals("alloc")) {
            throw new IllegalArgumentException(name);
        }
        return allocId;
    }

    @Override
    public Optional<String> query(String name) {
        List<String> values = query.get(name);
        return values == null ? Optional.empty() : Optional.of(values.get(0));
    }

    @Override
    public List<String> queryAll(String name) {
        return query.getOrDefault(name, List.of());
    }

    @Override
    public Optional<String> header(String name) {
        return Optional.ofNullable(headers.get(name.toLowerCase(java.util.Locale.ROOT)));
    }

    @Override
    public Optional<String> token() {
        return Optional.empty();
    }

    @Override
    public QueryOptions options() {
        return new QueryOptions("global", query("namespace").orElse(QueryOptions.DEFAULT_NAMESPACE), 0,
                QueryOptions.MAX_WAIT, false, "", "", 0, "", false);
    }

    @Override
    public <T> T body(Class<T> type) {
        if (body == null || body.isBlank()) {
            throw CaravanException.badRequest("Request body is empty");
        }
        try {
            return NomadJson.mapper().readValue(body, type);
        } catch (IOException e) {
            throw CaravanException.badRequest("Failed to parse request body: " + e.getMessage());
        }
    }

    @Override
    public String remoteAddress() {
        return "127.0.0.1";
    }
}
