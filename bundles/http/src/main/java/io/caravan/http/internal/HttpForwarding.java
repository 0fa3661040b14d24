package io.caravan.http.internal;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.http.HttpForward;
import io.caravan.http.HttpForward.Answer;
import io.caravan.http.HttpForward.Call;
import io.caravan.rpc.Endpoint;
import io.caravan.rpc.EndpointProvider;
import io.caravan.rpc.StreamEndpoint;
import io.caravan.rpc.StreamEndpointProvider;
import io.caravan.tls.AgentTls;
import io.caravan.tls.ReloadableTls;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;

/**
 * Serves {@link HttpForward} calls against this agent's own HTTP listener, so the answer (status, {@code X-Nomad-*}
 * headers, body, errors, blocking-query waits) is exactly what this agent sends its own callers. A server answers
 * any call, from anyone (client-only agents forward their API calls); a client-only agent answers only
 * {@code /v1/client/*} calls, and only from its servers (they reach a node's allocations this way).
 */
@Component(configurationPid = "io.caravan.http", service = {EndpointProvider.class, StreamEndpointProvider.class})
public final class HttpForwarding implements EndpointProvider, StreamEndpointProvider {
    /** Nomad's longest blocking query is 10 minutes (plus jitter). */
    private static final Duration LONGEST = Duration.ofMinutes(11);
    private static final List<String> RESPONSE_HEADERS = List.of("Content-Type", "X-Nomad-Index",
            "X-Nomad-Knownleader", "X-Nomad-Lastcontact", "X-Nomad-Nexttoken");

    private final boolean server;      // a restart-scoped key: fixed for the component's life
    private volatile String self;
    private volatile String consoleRoot;
    private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "caravan-http-forward");
        t.setDaemon(true);
        return t;
    });
    /** Built at the first forward: a JDK client keeps a selector thread from its creation, and most agents never
     *  forward (a server answers itself; a client forwards only what its servers serve). */
    private final HttpClient.Builder builder;
    private HttpClient http;   // guarded by this
    /** {@code https} when the listener is TLS (turning it on or off is a restart, as for the listener). */
    private final String scheme;
    private final ForwardedStreams streams;

    @Activate
    public HttpForwarding(HttpConfig config, @Reference AgentTls tls) {
        this.server = config.server_enabled();
        this.self = config.http_addr();
        this.consoleRoot = config.console_root();
        HttpClient.Builder builder = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(executor)
                .connectTimeout(Duration.ofSeconds(5));
        ReloadableTls https = tls.http();
        if (https != null) {
            // Its own certificate, which verify_https_client asks for; the CA checked, not the role (a client's).
            builder.sslContext(https.selfContext()).sslParameters(https.parameters());
        }
        this.builder = builder;
        this.scheme = https == null ? "http://" : "https://";
        this.streams = new ForwardedStreams(this::http, executor);
    }

    private synchronized HttpClient http() {
        if (http == null) {
            http = builder.build();
        }
        return http;
    }

    /** A reload must not drop the component (and its endpoint) for headers or other keys it does not use. */
    @Modified
    void modified(HttpConfig config) {
        this.self = config.http_addr();
        this.consoleRoot = config.console_root();
    }

    @Deactivate
    void deactivate() {
        executor.shutdownNow();
    }

    /**
     * A forwarded call reaches this agent from its own host, where the web console's loopback guard lets everything
     * through: only a path that cannot lead to the console is run.
     */
    static boolean isForwardable(String uri, String consoleRoot) {
        int query = uri.indexOf('?');
        return !ConsoleGuard.mayBeUnder(query < 0 ? uri : uri.substring(0, query), consoleRoot);
    }

    @Override
    public List<Endpoint<?, ?>> endpoints() {
        return List.of(server
                ? new Endpoint<>(HttpForward.METHOD, Call.class, Answer.class, Endpoint.Routing.LOCAL, this::serve)
                : new Endpoint<>(HttpForward.METHOD, Call.class, Answer.class, Endpoint.Routing.LOCAL,
                        Endpoint.Callers.SERVERS, this::serveClientCall));
    }

    /** The same rules as for calls: a client-only agent serves its servers' {@code /v1/client/*} streams only. */
    @Override
    public List<StreamEndpoint<?>> streams() {
        Endpoint.Callers callers = server ? Endpoint.Callers.ANY : Endpoint.Callers.SERVERS;
        return List.of(
                new StreamEndpoint<>(HttpForward.STREAM, Call.class, callers,
                        (call, stream) -> streams.body(URI.create(scheme + self + checked(call)), call, stream)),
                new StreamEndpoint<>(HttpForward.WEBSOCKET, Call.class, callers,
                        (call, stream) -> streams.socket(URI.create((scheme.equals("https://") ? "wss://" : "ws://")
                                + self + checked(call)), call, stream)));
    }

    /** The call's URI, if this agent may run it (as {@link #serveClientCall} and {@link #serve} decide for calls). */
    private String checked(Call call) {
        if (!server && !call.uri().startsWith("/v1/client/")) {
            throw new CaravanException(ErrorCode.NOT_FOUND, "this client only answers /v1/client/ calls");
        }
        if (!isForwardable(call.uri(), consoleRoot)) {
            throw new CaravanException(ErrorCode.PERMISSION_DENIED, "Permission denied");
        }
        return call.uri();
    }

    /** A client-only agent runs only its own {@code /v1/client/*} routes; anything else it would forward back. */
    private CompletionStage<Answer> serveClientCall(Call call) {
        if (!call.uri().startsWith("/v1/client/")) {
            return CompletableFuture.failedFuture(new CaravanException(ErrorCode.NOT_FOUND,
                    "this client only answers /v1/client/ calls"));
        }
        return serve(call);
    }

    private CompletionStage<Answer> serve(Call call) {
        if (!isForwardable(call.uri(), consoleRoot)) {
            return CompletableFuture.failedFuture(
                    new CaravanException(ErrorCode.PERMISSION_DENIED, "Permission denied"));
        }
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(scheme + self + call.uri()))
                .timeout(LONGEST)
                .method(call.method(), call.body() == null || call.body().length == 0
                        ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(call.body()));
        ForwardedMark.forListener(call.headers()).forEach(request::header);
        return http().sendAsync(request.build(), HttpResponse.BodyHandlers.ofByteArray()).thenApply(response -> {
            Map<String, String> headers = new LinkedHashMap<>();
            for (String name : RESPONSE_HEADERS) {
                response.headers().firstValue(name).ifPresent(v -> headers.put(name, v));
            }
            return new Answer(response.statusCode(), headers, response.body());
        });
    }
}
