package io.caravan.http.internal;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import io.caravan.http.QueryMeta;
import io.caravan.rpc.Endpoint;
import io.caravan.rpc.EndpointProvider;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;

/**
 * API calls that a client-only agent has no route for are answered by a server: the request travels over RPC
 * ({@value #METHOD}) and the server runs it against its own HTTP listener, so the answer (status, {@code X-Nomad-*}
 * headers, body, errors, blocking-query waits) is exactly what the server sends its own callers.
 */
@Component(configurationPid = "io.caravan.http", service = EndpointProvider.class)
public final class HttpForwarding implements EndpointProvider {
    static final String METHOD = "Agent.HTTP";
    /** Nomad's longest blocking query is 10 minutes (plus jitter). */
    private static final Duration LONGEST = Duration.ofMinutes(11);
    private static final List<String> REQUEST_HEADERS = List.of("X-Nomad-Token", "Content-Type");
    private static final List<String> RESPONSE_HEADERS = List.of("Content-Type", "X-Nomad-Index",
            "X-Nomad-Knownleader", "X-Nomad-Lastcontact", "X-Nomad-Nexttoken");

    /** One API call as it arrived: method, path with query string, the headers that matter, body. */
    record Call(String method, String uri, Map<String, String> headers, byte[] body) {}

    /** The server's answer. */
    record Answer(int status, Map<String, String> headers, byte[] body) {
        Optional<String> header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                    .map(Map.Entry::getValue).findFirst();
        }

        /** The {@code X-Nomad-*} headers as the servlet writes them, or null when the server sent none. */
        QueryMeta meta() {
            return header("X-Nomad-Index").map(index -> new QueryMeta(Long.parseLong(index),
                    Boolean.parseBoolean(header("X-Nomad-Knownleader").orElse("true")),
                    Long.parseLong(header("X-Nomad-Lastcontact").orElse("0")),
                    header("X-Nomad-Nexttoken").orElse(null))).orElse(null);
        }
    }

    private final boolean server;
    private final String self;
    private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "caravan-http-forward");
        t.setDaemon(true);
        return t;
    });
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(executor)
            .connectTimeout(Duration.ofSeconds(5)).build();

    @Activate
    public HttpForwarding(HttpConfig config) {
        this.server = config.server_enabled();
        this.self = config.http_addr();
    }

    @Deactivate
    void deactivate() {
        executor.shutdownNow();
    }

    static Call call(String method, String uri, java.util.function.Function<String, String> header, byte[] body) {
        Map<String, String> headers = new LinkedHashMap<>();
        for (String name : REQUEST_HEADERS) {
            String value = header.apply(name);
            if (value != null) {
                headers.put(name, value);
            }
        }
        return new Call(method, uri, headers, body);
    }

    /** Only servers answer forwarded calls: a client would forward them again. */
    @Override
    public List<Endpoint<?, ?>> endpoints() {
        return server ? List.of(new Endpoint<>(METHOD, Call.class, Answer.class, Endpoint.Routing.LOCAL, this::serve))
                : List.of();
    }

    private CompletionStage<Answer> serve(Call call) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://" + self + call.uri()))
                .timeout(LONGEST)
                .method(call.method(), call.body() == null || call.body().length == 0
                        ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(call.body()));
        call.headers().forEach(request::header);
        return http.sendAsync(request.build(), HttpResponse.BodyHandlers.ofByteArray()).thenApply(response -> {
            Map<String, String> headers = new LinkedHashMap<>();
            for (String name : RESPONSE_HEADERS) {
                response.headers().firstValue(name).ifPresent(v -> headers.put(name, v));
            }
            return new Answer(response.statusCode(), headers, response.body());
        });
    }
}
