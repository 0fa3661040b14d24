package io.caravan.cli.http;

import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.charset.StandardCharsets;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.api.json.NomadJson;
import io.caravan.cli.format.GoDuration;
import io.caravan.tls.TlsException;

/**
 * The one HTTP client of the CLI: base address, {@code X-Nomad-Token}, {@code ?region=}, and the mapping of
 * failures to Nomad's error texts ({@code Unexpected response code: 404 (body)}).
 */
public final class ApiClient {
    public static final String TOKEN_HEADER = "X-Nomad-Token";
    public static final String INDEX_HEADER = "X-Nomad-Index";

    /** A parsed body and the state index it reflects ({@code X-Nomad-Index}; 0 when absent). */
    public record Response(JsonNode body, long index) {}

    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);

    private final Connection connection;
    private final HttpClient http;

    /** @throws ApiException an {@code https://} address whose TLS files cannot be used (the message names the file) */
    public ApiClient(Connection connection) throws ApiException {
        this.connection = connection;
        // HTTP/1.1: the agent speaks it, and the JDK's h2c upgrade attempt would only add a round of headers.
        HttpClient.Builder builder = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(CONNECT_TIMEOUT)
                .followRedirects(HttpClient.Redirect.NEVER);
        if (connection.https()) {
            try {
                SSLContext context = connection.tls().context();
                builder.sslContext(context).sslParameters(connection.tls().parameters(context.getDefaultSSLParameters()));
            } catch (TlsException e) {
                throw new ApiException(e.getMessage());
            }
        }
        this.http = builder.build();
    }

    public JsonNode get(String path) throws ApiException {
        return get(path, Map.of());
    }

    /** GETs {@code path} and parses the JSON body; {@code query} values override the connection's region. */
    public JsonNode get(String path, Map<String, String> query) throws ApiException {
        return send("GET", path, query);
    }

    /**
     * A read with its {@code X-Nomad-Index}, for blocking queries: pass {@code index} and {@code wait} in
     * {@code query}; {@code timeout} bounds the whole request (the server may hold it for up to {@code wait}).
     */
    public Response query(String path, Map<String, String> query, Duration timeout) throws ApiException {
        HttpResponse<String> response = exchange("GET", path, query, null, timeout);
        return new Response(parse(response), index(response));
    }

    /** PUTs to {@code path} with no body (Nomad's writes without a payload, e.g. {@code /v1/agent/reload}). */
    public JsonNode put(String path) throws ApiException {
        return send("PUT", path, Map.of());
    }

    /** POSTs a JSON body to {@code path}, e.g. a jobspec to {@code /v1/jobs/parse}. */
    public JsonNode post(String path, JsonNode body) throws ApiException {
        return send("POST", path, Map.of(), body);
    }

    /** PUTs a JSON body to {@code path}, e.g. a job to {@code /v1/jobs}. */
    public JsonNode put(String path, JsonNode body) throws ApiException {
        return send("PUT", path, Map.of(), body);
    }

    /** PUTs with query parameters and an optional body ({@code null}: none). */
    public JsonNode put(String path, Map<String, String> query, JsonNode body) throws ApiException {
        return send("PUT", path, query, body);
    }

    /**
     * PUTs to {@code path} without a body, with {@code name} repeated once per value, as Go's {@code url.Values}
     * encodes a list: {@code /v1/agent/join?address=a&address=b}.
     */
    public JsonNode put(String path, String name, List<String> values) throws ApiException {
        return parse(exchange("PUT", path, Map.of(), repeated(name, values), null, null));
    }

    /** An answer read whatever its status, when that status is one the caller handles (a 409 with the conflict). */
    public record Answer(int status, JsonNode body, long index, String nextToken) {}

    /**
     * Sends {@code body} ({@code null}: none) and answers with the status and parsed body when the status is below 400
     * or one of {@code accepted}; any other error throws as the other calls do.
     */
    public Answer call(String method, String path, Map<String, String> query, JsonNode body, int... accepted)
            throws ApiException {
        Set<Integer> ok = new HashSet<>();
        for (int status : accepted) {
            ok.add(status);
        }
        HttpResponse<String> response = exchange(method, path, query, List.of(), body, null, ok);
        JsonNode parsed;
        try {
            parsed = parse(response);
        } catch (ApiException e) {
            if (response.statusCode() < 400) {
                throw e;
            }
            parsed = NomadJson.mapper().getNodeFactory().textNode(response.body());   // an error's plain text
        }
        return new Answer(response.statusCode(), parsed, index(response),
                response.headers().firstValue("X-Nomad-NextToken").orElse(""));
    }

    /** DELETEs {@code path}, e.g. {@code /v1/job/web?purge=true}. */
    public JsonNode delete(String path, Map<String, String> query) throws ApiException {
        return send("DELETE", path, query);
    }

    /** PUTs {@code bytes} as they are ({@code application/octet-stream}), e.g. a snapshot to restore. */
    public JsonNode putBytes(String path, Map<String, String> query, byte[] bytes) throws ApiException {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(path, query))
                .PUT(HttpRequest.BodyPublishers.ofByteArray(bytes))
                .header("Accept", "application/json").header("Content-Type", "application/octet-stream");
        if (connection.token() != null) {
            request.header(TOKEN_HEADER, connection.token());
        }
        HttpResponse<String> response;
        try {
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw unreachable(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApiException("interrupted");
        }
        if (response.statusCode() >= 400) {
            throw new ApiException("Unexpected response code: " + response.statusCode() + " ("
                    + oneLine(response.body()) + ")");
        }
        return parse(response);
    }

    /**
     * GETs a raw body ({@code /v1/client/fs/*} with {@code plain=true}) and copies it to {@code out} as it arrives,
     * so {@code -f} follows a log for as long as the agent streams it.
     */
    public void copy(String path, Map<String, String> query, java.io.OutputStream out) throws ApiException {
        copy(path, query, List.of(), out);
    }

    /** As {@link #copy(String, Map, java.io.OutputStream)}, with {@code name=value} repeated per value of {@code repeated}. */
    public void copy(String path, Map<String, String> query, String name, List<String> values,
                     java.io.OutputStream out) throws ApiException {
        copy(path, query, repeated(name, values), out);
    }

    private void copy(String path, Map<String, String> query, List<Map.Entry<String, String>> extra,
                      java.io.OutputStream out) throws ApiException {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(path, query, extra)).GET();
        if (connection.token() != null) {
            request.header(TOKEN_HEADER, connection.token());
        }
        try {
            HttpResponse<java.io.InputStream> response = http.send(request.build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            try (java.io.InputStream in = response.body()) {
                if (response.statusCode() >= 400) {
                    throw new ApiException("Unexpected response code: " + response.statusCode() + " ("
                            + oneLine(new String(in.readAllBytes(), StandardCharsets.UTF_8)) + ")");
                }
                byte[] buffer = new byte[8192];
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            }
        } catch (IOException e) {
            throw unreachable(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApiException("interrupted");
        }
    }

    /**
     * Opens a WebSocket on {@code path} ({@code ws://} or {@code wss://} for the agent's address), with the token as
     * {@code X-Nomad-Token}; an agent that answers with an error status fails with Nomad's wording.
     */
    public WebSocket webSocket(String path, Map<String, String> query, WebSocket.Listener listener)
            throws ApiException {
        URI uri = URI.create(uri(path, query).toString().replaceFirst("^http", "ws"));
        WebSocket.Builder builder = http.newWebSocketBuilder().connectTimeout(CONNECT_TIMEOUT);
        if (connection.token() != null) {
            builder.header(TOKEN_HEADER, connection.token());
        }
        try {
            return builder.buildAsync(uri, listener).join();
        } catch (java.util.concurrent.CompletionException e) {
            if (e.getCause() instanceof WebSocketHandshakeException refused) {
                Object body = refused.getResponse().body();
                throw new ApiException("Unexpected response code: " + refused.getResponse().statusCode()
                        + (body == null ? "" : " (" + oneLine(body.toString()) + ")"));
            }
            throw unreachable(e.getCause() instanceof IOException io ? io : new IOException(e.getCause()));
        }
    }

    private JsonNode send(String method, String path, Map<String, String> query) throws ApiException {
        return send(method, path, query, null);
    }

    private JsonNode send(String method, String path, Map<String, String> query, JsonNode body) throws ApiException {
        return parse(exchange(method, path, query, body, null));
    }

    private HttpResponse<String> exchange(String method, String path, Map<String, String> query, JsonNode body,
            Duration timeout) throws ApiException {
        return exchange(method, path, query, List.of(), body, timeout);
    }

    private HttpResponse<String> exchange(String method, String path, Map<String, String> query,
            List<Map.Entry<String, String>> extra, JsonNode body, Duration timeout) throws ApiException {
        return exchange(method, path, query, extra, body, timeout, Set.of());
    }

    private HttpResponse<String> exchange(String method, String path, Map<String, String> query,
            List<Map.Entry<String, String>> extra, JsonNode body, Duration timeout,
            Set<Integer> accepted) throws ApiException {
        URI uri = uri(path, query, extra);
        HttpRequest.BodyPublisher payload;
        try {
            payload = body == null ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofByteArray(NomadJson.mapper().writeValueAsBytes(body));
        } catch (JsonProcessingException e) {
            throw new ApiException("cannot encode the request: " + e.getOriginalMessage());
        }
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).method(method, payload)
                .header("Accept", "application/json").header("Content-Type", "application/json");
        if (connection.token() != null) {
            request.header(TOKEN_HEADER, connection.token());
        }
        if (timeout != null) {
            request.timeout(timeout);
        }
        HttpResponse<String> response;
        try {
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (HttpTimeoutException e) {
            throw e instanceof HttpConnectTimeoutException ? unreachable(e)
                    : new ApiException(connection.address() + ": no response within " + GoDuration.format(timeout));
        } catch (IOException e) {
            throw unreachable(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApiException("interrupted");
        }
        if (response.statusCode() >= 400 && !accepted.contains(response.statusCode())) {
            throw new ApiException("Unexpected response code: " + response.statusCode()
                    + " (" + oneLine(response.body()) + ")");
        }
        return response;
    }

    private static JsonNode parse(HttpResponse<String> response) throws ApiException {
        if (response.body().isEmpty()) {
            return NomadJson.mapper().nullNode();
        }
        try {
            return NomadJson.mapper().readTree(response.body());
        } catch (JsonProcessingException e) {
            throw new ApiException("error decoding response: " + e.getOriginalMessage());
        }
    }

    /** {@code X-Nomad-Index}, or 0 when the endpoint sends none. */
    private static long index(HttpResponse<String> response) {
        try {
            return response.headers().firstValue(INDEX_HEADER).map(Long::parseLong).orElse(0L);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private URI uri(String path, Map<String, String> query) throws ApiException {
        return uri(path, query, List.of());
    }

    /** {@code query} (over the connection's region and namespace), then {@code extra} in order; empty values are left out. */
    private URI uri(String path, Map<String, String> query, List<Map.Entry<String, String>> extra)
            throws ApiException {
        Map<String, String> params = new LinkedHashMap<>();
        if (connection.region() != null) {
            params.put("region", connection.region());
        }
        if (connection.namespace() != null) {
            params.put("namespace", connection.namespace());
        }
        params.putAll(query);
        StringJoiner qs = new StringJoiner("&", "?", "").setEmptyValue("");
        params.forEach((k, v) -> {
            if (v != null && !v.isEmpty()) {
                qs.add(encode(k) + "=" + encode(v));
            }
        });
        for (Map.Entry<String, String> e : extra) {
            if (e.getValue() != null && !e.getValue().isEmpty()) {
                qs.add(encode(e.getKey()) + "=" + encode(e.getValue()));
            }
        }
        try {
            return URI.create(connection.address() + path + qs);
        } catch (IllegalArgumentException e) {
            throw new ApiException("invalid address \"" + connection.address() + "\": " + e.getMessage());
        }
    }

    private static List<Map.Entry<String, String>> repeated(String name, List<String> values) {
        return values.stream().map(v -> Map.entry(name, v)).toList();
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    /** The address and what went wrong talking to it. */
    private ApiException unreachable(IOException e) {
        // An agent that refuses the client's certificate may hang up without a TLS alert: over TLS 1.3 the client
        // then sees the end of the stream after its request, over TLS 1.2 a broken handshake.
        boolean hungUp = causedBy(e, EOFException.class)
                || mentions(e, "EOF reached", "Broken pipe", "Connection reset", "Remote host terminated");
        if (connection.https() && hungUp && !mentions(e, "Received fatal alert")) {
            return new ApiException(connection.address() + ": TLS: the agent closed the connection; it may require "
                    + "a client certificate signed by its CA (-client-cert, -client-key)");
        }
        // JDK 17's HttpClient does not report a TLS 1.3 alert that refuses the client's certificate: the request
        // waits for the connect timeout instead.
        if (connection.https() && causedBy(e, HttpConnectTimeoutException.class)) {
            return new ApiException(connection.address() + ": i/o timeout (over TLS this is also how an agent's "
                    + "refusal of the client certificate shows: -client-cert, -client-key)");
        }
        boolean nobody = causedBy(e, ConnectException.class) || causedBy(e, UnresolvedAddressException.class)
                || causedBy(e, HttpConnectTimeoutException.class);
        return new ApiException(connection.address() + ": " + describe(e), nobody);
    }

    /** Go-like lower-case reason; the JDK often leaves the message null on the outer exception. */
    static String describe(Throwable e) {
        if (causedBy(e, SSLException.class)) {
            return "TLS handshake failed: " + tlsProblem(e);
        }
        if (causedBy(e, HttpConnectTimeoutException.class)) {
            return "i/o timeout";
        }
        if (causedBy(e, UnresolvedAddressException.class)) {
            return "no such host";
        }
        String message = deepestMessage(e);
        if (causedBy(e, ConnectException.class)) {
            return message == null ? "connection refused" : message.toLowerCase(Locale.ROOT);
        }
        return message == null ? e.getClass().getSimpleName() : message;
    }

    /** The usual TLS mistakes in words, with the flag that fixes them; the JDK's own message otherwise. */
    private static String tlsProblem(Throwable e) {
        if (causedBy(e, CertPathBuilderException.class) || causedBy(e, CertPathValidatorException.class)) {
            return "the agent's certificate is not signed by a CA this command trusts (-ca-cert, -ca-path)";
        }
        if (mentions(e, "certificate_required", "bad_certificate")) {
            return "the agent refused the client certificate: none was given, or it is not from the agent's CA "
                    + "(-client-cert, -client-key)";
        }
        if (mentions(e, "nrecognized SSL message")) {   // "Unrecognized SSL message, plaintext connection?"
            return "the agent does not speak TLS at this address (use http://)";
        }
        String message = deepestMessage(e);
        return message == null ? e.getClass().getSimpleName() : message;
    }

    /** Whether a message in the chain contains one of {@code texts}. */
    private static boolean mentions(Throwable e, String... texts) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            for (String text : texts) {
                if (t.getMessage() != null && t.getMessage().contains(text)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    private static String deepestMessage(Throwable e) {
        String message = null;
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getMessage() != null && !t.getMessage().isBlank()) {
                message = t.getMessage();
            }
        }
        return message;
    }

    private static String oneLine(String body) {
        return body == null ? "" : body.strip().replaceAll("\\s*\\R\\s*", " ");
    }
}
