package io.caravan.http.internal;

import java.io.FilterInputStream;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PushbackInputStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.Acl;
import io.caravan.api.acl.Identity;
import io.caravan.http.ApiRequest;
import io.caravan.http.HttpForward;
import io.caravan.http.QueryOptions;
import jakarta.servlet.http.HttpServletRequest;

/** An {@link ApiRequest} over a servlet request. */
final class WireRequest implements ApiRequest {
    private final HttpServletRequest request;
    private final Map<String, String> params;
    /** From the query string only: getParameter() would read a form-encoded body (curl -d) and lose it. */
    private final Map<String, List<String>> query;
    private final QueryOptions options;
    private final ObjectMapper json;
    private final long maxBody;
    private volatile Identity identity = Identity.anonymous(Acl.NONE);
    private volatile byte[] rawBody;
    private volatile java.util.function.Function<String, Identity> authenticator;

    /** @param maxBody the most body bytes {@link #body} and {@link #rawBody} read before answering 413 */
    WireRequest(HttpServletRequest request, Map<String, String> params, String defaultRegion, ObjectMapper json,
                long maxBody) {
        this.request = request;
        this.params = params;
        this.json = json;
        this.maxBody = maxBody;
        this.query = parseQuery(request.getQueryString());
        this.options = QueryParser.parse(name -> query(name).orElse(null), defaultRegion,
                java.util.concurrent.ThreadLocalRandom.current());
    }

    @Override
    public String method() {
        return request.getMethod();
    }

    @Override
    public String path() {
        return request.getRequestURI();
    }

    @Override
    public String pathParam(String name) {
        String value = params.get(name);
        if (value == null) {
            throw new IllegalArgumentException("route has no parameter " + name);
        }
        return value;
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

    /** {@code a=1&b&a=2} → {a: [1, 2], b: [""]}, URL-decoded as query strings are ({@code +} is a space). */
    static Map<String, List<String>> parseQuery(String queryString) {
        Map<String, List<String>> out = new java.util.LinkedHashMap<>();
        if (queryString == null || queryString.isEmpty()) {
            return out;
        }
        for (String pair : queryString.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String name = decode(eq < 0 ? pair : pair.substring(0, eq));
            String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
            out.computeIfAbsent(name, k -> new java.util.ArrayList<>()).add(value);
        }
        return out;
    }

    private static String decode(String s) {
        try {
            return java.net.URLDecoder.decode(s, java.nio.charset.StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return s; // a stray '%': keep it as written
        }
    }

    /** {@link HttpForward#FORWARDED} is internal: present only when this agent set it ({@link ForwardedMark}). */
    @Override
    public Optional<String> header(String name) {
        String value = request.getHeader(name);
        if (name.equalsIgnoreCase(HttpForward.FORWARDED)) {
            return ForwardedMark.trusted(value) ? Optional.of("1") : Optional.empty();
        }
        return Optional.ofNullable(value);
    }

    @Override
    public Identity identity() {
        return identity;
    }

    void setIdentity(Identity caller) {
        this.identity = caller;
    }

    @Override
    public boolean authenticationDeferred() {
        return authenticator != null;
    }

    @Override
    public Identity authenticate(String token) {
        java.util.function.Function<String, Identity> resolve = authenticator;
        return resolve == null ? identity : resolve.apply(token);
    }

    /** The call's handler authenticates it, with {@code resolve} ({@link ApiRequest#authenticationDeferred()}). */
    void deferAuthentication(java.util.function.Function<String, Identity> resolve) {
        this.authenticator = resolve;
    }

    @Override
    public Optional<String> token() {
        return token(request.getHeader("X-Nomad-Token"), request.getHeader("Authorization"));
    }

    /** Nomad's order: {@code X-Nomad-Token}, then the first word after {@code Bearer} (any case). */
    static Optional<String> token(String nomadToken, String authorization) {
        if (nomadToken != null && !nomadToken.isBlank()) {
            return Optional.of(nomadToken.trim());
        }
        if (authorization != null) {
            String[] parts = authorization.trim().split("\\s+");
            if (parts.length >= 2 && parts[0].toLowerCase(Locale.ROOT).equals("bearer")) {
                return Optional.of(parts[1]);
            }
        }
        return Optional.empty();
    }

    @Override
    public QueryOptions options() {
        return options;
    }

    @Override
    public <T> T body(Class<T> type) {
        // Streamed from the request, or from the bytes rawBody() already read (a stream can be read only once).
        byte[] read = rawBody;
        try (PushbackInputStream in = new PushbackInputStream(read != null ? new ByteArrayInputStream(read)
                : input())) {
            int first = skipWhitespace(in);
            if (first < 0) {
                throw CaravanException.badRequest("Request body is empty");
            }
            in.unread(first);
            return json.readValue(in, type);
        } catch (JsonProcessingException e) {
            String where = e.getLocation() == null ? ""
                    : " at line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr();
            throw CaravanException.badRequest("Failed to parse request body: " + e.getOriginalMessage() + where);
        } catch (BodyTooLarge e) {
            throw e.toCaravan();
        } catch (IOException e) {
            throw CaravanException.badRequest("Failed to read request body: " + e.getMessage());
        }
    }

    /** The body, cut off after {@code maxBody} bytes: a chunked body has no length to check up front. */
    private InputStream input() throws IOException {
        return new Bounded(request.getInputStream(), maxBody);
    }

    /** 413 with the limit, plain text as every API error. */
    static CaravanException tooLarge(long limit) {
        return new CaravanException(ErrorCode.PAYLOAD_TOO_LARGE, "Request body too large: the limit is " + limit
                + " bytes");
    }

    /** Thrown by {@link Bounded} as an IOException, so it passes through Jackson's reader unchanged. */
    private static final class BodyTooLarge extends IOException {
        private static final long serialVersionUID = 1L;
        private final long limit;

        BodyTooLarge(long limit) {
            super("body exceeds " + limit + " bytes");
            this.limit = limit;
        }

        CaravanException toCaravan() {
            return tooLarge(limit);
        }
    }

    /** Reads at most {@code limit} bytes and fails on the next one. */
    static final class Bounded extends FilterInputStream {
        private final long limit;
        private long remaining;

        Bounded(InputStream in, long limit) {
            super(in);
            this.limit = limit;
            this.remaining = limit;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (remaining < 0) {
                throw new BodyTooLarge(limit);
            }
            if (len == 0) {
                return 0;
            }
            // One byte past the limit tells "exactly the limit" from "more".
            int n = in.read(b, off, len > remaining ? (int) remaining + 1 : len);
            if (n > 0 && (remaining -= n) < 0) {
                throw new BodyTooLarge(limit);
            }
            return n;
        }

        /** Skipped bytes count too, so they are read rather than skipped underneath. */
        @Override
        public long skip(long n) throws IOException {
            if (n <= 0) {
                return 0;
            }
            int read = read(new byte[(int) Math.min(n, 8192)]);
            return Math.max(read, 0);
        }
    }

    private static int skipWhitespace(InputStream in) throws IOException {
        int c;
        do {
            c = in.read();
        } while (c == ' ' || c == '\n' || c == '\r' || c == '\t');
        return c;
    }

    @Override
    public String rawQuery() {
        String q = request.getQueryString();
        return q == null ? "" : q;
    }

    /** Read once and kept: a handler may look at the bytes and then parse them. */
    @Override
    public byte[] rawBody() {
        if (rawBody != null) {
            return rawBody;
        }
        try (InputStream in = input()) {
            rawBody = in.readAllBytes();
            return rawBody;
        } catch (BodyTooLarge e) {
            throw e.toCaravan();
        } catch (IOException e) {
            throw CaravanException.badRequest("Failed to read request body: " + e.getMessage());
        }
    }

    @Override
    public String remoteAddress() {
        return request.getRemoteAddr();
    }
}
