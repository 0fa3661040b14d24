package io.caravan.http.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.Acl;
import io.caravan.api.acl.AclResolver;
import io.caravan.api.acl.AclRule;
import io.caravan.api.acl.Identity;
import io.caravan.api.json.NomadJson;
import io.caravan.api.timer.Deadlines;
import io.caravan.api.timer.SharedTimer;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiRequest;
import io.caravan.http.ApiResponse;
import io.caravan.http.ApiRoutes;
import io.caravan.http.AsyncHandler;
import io.caravan.http.HttpForward;
import io.caravan.http.QueryMeta;
import io.caravan.http.QueryOptions;
import io.caravan.http.RawBody;
import io.caravan.http.RouteTable;
import io.caravan.http.StreamingBody;
import io.caravan.http.WebSocketBody;
import io.caravan.http.WriteBarrier;
import io.caravan.rpc.LeaderLocator;
import io.caravan.tls.AgentTls;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardServletAsyncSupported;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardServletPattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one servlet behind Nomad's API. It owns the wire contract: routing ({@code 404} with an empty body for an
 * unknown path, {@code 405 Invalid method}), query options, {@code X-Nomad-*} headers, JSON with {@code ?pretty},
 * the configured response headers, and plain-text errors. It also answers the root: {@code /} redirects to the UI.
 * A {@link RawBody} is written as its bytes; a {@link StreamingBody} keeps the request parked on its
 * {@link AsyncContext} and writes through a non-blocking {@link StreamingResponse} until the body closes it.
 */
@Component(service = Servlet.class, configurationPid = "io.caravan.http")
@HttpWhiteboardServletPattern({"/v1/*", "/"})
@HttpWhiteboardServletAsyncSupported
@Designate(ocd = HttpConfig.class)
public final class ApiServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(ApiServlet.class);
    /** How long a call waits for a starting agent's configuration and routes (Nomad's RPC hold timeout). */
    private static final Duration ROUTES_HOLD = Duration.ofSeconds(5);
    /** A route every server has once its components are up. */
    private static final String SERVER_ROUTE = "/v1/jobs";
    /** The most of a refused body read (and dropped) so that the client sees the 413; see drainRefused. */
    private static final long DRAIN_MAX = 8L * 1024 * 1024;
    /** Caravan's own listing of what this agent serves (not in Nomad's API). */
    static final String ENDPOINTS_PATH = "/v1/agent/endpoints";
    private static final ApiEndpoint ENDPOINTS = ApiEndpoint.of("Agent.Endpoints", AclRule.MANAGEMENT);

    private final transient Map<ApiRoutes, Integer> groups = new ConcurrentHashMap<>();
    private transient volatile Router router = Router.of(List.of());
    /** Completed (and replaced) when the routes or the configuration change: what a call waits on while starting. */
    private transient volatile CompletableFuture<Void> changes = new CompletableFuture<>();
    private transient volatile Settings settings;
    /** Present on agents with RPC; a client-only agent forwards calls it has no route for ({@link HttpForwarding}). */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private transient volatile io.caravan.rpc.Rpc rpc;
    /** Present when ACLs are enabled and this agent can resolve tokens (servers, and clients through them). */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private transient volatile AclResolver resolver;
    /** Present on servers: what a write waits for before it runs ({@link WriteBarrier}). */
    private transient volatile WriteBarrier barrier;
    /** Present on servers: where LEADER-routed endpoints are served. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private transient volatile LeaderLocator locator;
    private final transient EndpointCalls calls;

    /**
     * The parts of {@link HttpConfig} this servlet uses, swapped atomically on change. {@code configured} is false while
     * the servlet runs on defaults because the agent has not yet written its configuration.
     */
    private record Settings(String region, List<String[]> responseHeaders, String consoleRoot, boolean server,
                            long maxRequestBody, String bindAddr, boolean aclEnabled, boolean configured) {
        static Settings of(HttpConfig config, Map<String, Object> properties) {
            List<String[]> headers = new ArrayList<>();
            for (String line : config.response_headers()) {
                int colon = line.indexOf(':');
                if (colon > 0) {
                    headers.add(new String[] {line.substring(0, colon).trim(), line.substring(colon + 1).trim()});
                }
            }
            return new Settings(config.region(), List.copyOf(headers), config.console_root(),
                    config.server_enabled(), config.max_request_body(), config.bind_addr(), config.acl_enabled(),
                    properties.containsKey(Constants.SERVICE_PID));
        }
    }

    /** The bundle, to open the API's listener once the container has this servlet ({@link ApiConnector}). */
    private final transient BundleContext bundle;
    private transient volatile ApiConnector listener;
    /** The agent's TLS, known before the port opens (the agent always configures it); null in unit tests. */
    @Reference
    private transient volatile AgentTls tls;

    /** Times the start-up hold: a view of the agent's shared timer; null in unit tests (the JDK's timer then). */
    private transient volatile ScheduledExecutorService holdTimer;

    @Reference
    void bindTimer(SharedTimer shared) {
        holdTimer = shared.timer("caravan-http-hold");
    }

    @Activate
    public ApiServlet(HttpConfig config, Map<String, Object> properties, BundleContext bundle,
                      @Reference EndpointCalls calls) {
        this.calls = calls;
        this.settings = Settings.of(config, properties);
        this.bundle = bundle;
    }

    /**
     * The container has this servlet now: the API's port can open (the whiteboard inits servlets on registration, and
     * again after a configuration change, which changes the service's properties; the agent restarts to move the port).
     */
    @Override
    public void init() {
        String bindAddr = settings.bindAddr();
        if (bundle != null && !bindAddr.isBlank()) {
            AgentTls agentTls = tls;
            listener = ApiConnector.open(bundle, bindAddr, agentTls == null ? null : agentTls.http());
        }
    }

    @Override
    public void destroy() {
        ApiConnector open = listener;
        listener = null;
        if (open != null) {
            open.close();
        }
    }

    @Modified
    void modified(HttpConfig config, Map<String, Object> properties) {
        this.settings = Settings.of(config, properties);
        changed();
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindRoutes(ApiRoutes routes, Map<String, Object> properties) {
        groups.put(routes, ranking(properties));
        rebuild();
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    void bindBarrier(WriteBarrier writes) {
        barrier = writes;
    }

    void unbindBarrier(WriteBarrier writes) {
        if (barrier == writes) {
            barrier = null;
        }
    }

    void unbindRoutes(ApiRoutes routes) {
        groups.remove(routes);
        rebuild();
    }

    private static int ranking(Map<String, Object> properties) {
        return properties.get(Constants.SERVICE_RANKING) instanceof Integer i ? i : 0;
    }

    private synchronized void rebuild() {
        List<Router.Route> routes = new ArrayList<>();
        routes.add(new Router.Route("GET", new Router.Pattern(ENDPOINTS_PATH), ENDPOINTS, this::endpoints,
                Integer.MIN_VALUE, ApiServlet.class.getName()));
        groups.forEach((group, ranking) -> {
            String source = group.getClass().getName();
            List<Router.Route> declared = new ArrayList<>();
            RouteTable table = new RouteTable() {
                @Override
                public RouteTable routeAsync(String method, String pattern, ApiEndpoint endpoint,
                                             AsyncHandler handler) {
                    declared.add(new Router.Route(method, new Router.Pattern(pattern), Objects.requireNonNull(endpoint,
                            "endpoint of " + method + " " + pattern), handler, ranking, source));
                    return this;
                }
            };
            try {
                group.register(table);
                routes.addAll(declared);
            } catch (RuntimeException e) {
                // A group with a route that names no endpoint (or fails otherwise) serves none of its routes.
                LOG.atError().addKeyValue("routes", source).addKeyValue("error", e.toString())
                        .log("route group refused");
            }
        });
        Router next = Router.of(routes);
        next.conflicts().forEach(c -> LOG.atWarn().addKeyValue("route", c).log("duplicate API route"));
        router = next;
        changed();
    }

    /** One served route as {@code GET /v1/agent/endpoints} lists it. */
    record EndpointView(String method, String path, String endpoint, String rule, String grantingPolicy,
                        String source) {}

    /**
     * Every route this agent serves with its endpoint and rule, and a policy that grants the rule in every namespace
     * ({@code namespace "*"}: some routes check the namespace their path names, not the query's): what an operator
     * audits, and what the enforcement matrix test is generated from.
     */
    private CompletionStage<ApiResponse> endpoints(ApiRequest request) {
        List<EndpointView> out = new ArrayList<>();
        for (Router.Route route : router.routes()) {
            ApiEndpoint e = route.endpoint();
            out.add(new EndpointView(route.method(), route.pattern().toString(), e.name(), e.rule().describe(),
                    e.rule().grantingPolicy("*").orElse(null), route.source()));
        }
        return CompletableFuture.completedFuture(ApiResponse.ok(out));
    }

    /** Wakes the calls waiting for a starting agent: its routes or its configuration changed. */
    private void changed() {
        CompletableFuture<Void> waiting = changes;
        changes = new CompletableFuture<>();
        waiting.complete(null);
    }

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        Settings current = settings;
        for (String[] header : current.responseHeaders()) {
            response.setHeader(header[0], header[1]);
        }
        String path = request.getRequestURI();
        // Besides the API, the public discovery documents (/.well-known/jwks.json and friends) are routes too.
        if (!path.startsWith("/v1/") && !path.startsWith("/.well-known/")) {
            root(path, current, response);
            return;
        }
        long start = System.nanoTime();
        if (request.getContentLengthLong() > current.maxRequestBody()) {
            // Refused before a byte is read; a chunked body is cut off while it is read (WireRequest).
            writeError(response, 413, WireRequest.tooLarge(current.maxRequestBody()).getMessage());
            drainRefused(request, response);
            return;
        }
        CompletableFuture<ApiResponse> answer = dispatchSafely(request, current);
        if (answer.isDone()) {
            finish(request, response, answer, start);
            return;
        }
        // A blocking query: park the request instead of a thread; the stage's own deadline ends the wait.
        AsyncContext async = request.startAsync();
        async.setTimeout(0);
        answer.whenComplete((ignored, error) -> {
            boolean streaming = false;
            try {
                streaming = finish(request, response, answer, start);
            } catch (IOException e) {
                LOG.atDebug().addKeyValue("path", path).addKeyValue("error", e.toString()).log("client went away");
            } finally {
                if (!streaming) {
                    async.complete();
                }
            }
        });
    }

    private CompletableFuture<ApiResponse> dispatchSafely(HttpServletRequest request, Settings current) {
        try {
            return dispatch(request, current, System.nanoTime() + ROUTES_HOLD.toNanos()).toCompletableFuture();
        } catch (Throwable e) {
            // Errors too (a handler's StackOverflowError): a plain-text 500, never the container's error page.
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * @param holdUntil while the agent is starting (this servlet has no configuration yet, or a server's own routes
     *     are still registering: its components start after the HTTP port opens), a call that finds no route waits
     *     until this {@link System#nanoTime()} instead of answering 404, as Nomad holds calls while a server starts
     */
    private CompletionStage<ApiResponse> dispatch(HttpServletRequest request, Settings current, long holdUntil)
            throws Exception {
        Router.Match match = router.find(request.getMethod(), request.getRequestURI());
        if (match instanceof Router.NotFound) {
            io.caravan.rpc.Rpc servers = rpc;
            if (!current.server() && servers != null && !servers.servers().isEmpty()) {
                return forward(request, servers, current);
            }
            long left = holdUntil - System.nanoTime();
            boolean starting = !current.configured()
                    || current.server() && router.find("GET", SERVER_ROUTE) instanceof Router.NotFound;
            if (starting && left > 0) {
                ScheduledExecutorService timer = holdTimer;
                CompletableFuture<Void> next = changes.copy();
                return (timer == null ? next.completeOnTimeout(null, left, TimeUnit.NANOSECONDS)
                        : Deadlines.completeOnTimeout(next, null, left, TimeUnit.NANOSECONDS, timer))
                        .thenCompose(changed -> {
                            try {
                                return dispatch(request, settings, holdUntil);
                            } catch (Exception e) {
                                return CompletableFuture.failedFuture(e);
                            }
                        });
            }
            return CompletableFuture.completedFuture(new ApiResponse(404, null, null));
        }
        if (match instanceof Router.WrongMethod) {
            throw new CaravanException(ErrorCode.METHOD_NOT_ALLOWED, "Invalid method");
        }
        Router.Found found = (Router.Found) match;
        WireRequest call = new WireRequest(request, found.params(), current.region(), NomadJson.mapper(),
                current.maxRequestBody());
        WriteBarrier writes = barrier;
        if (writes != null && current.server() && !request.getMethod().equals("GET")
                && found.endpoint().routing() == ApiEndpoint.Routing.LOCAL) {
            // Before the caller's token and the route's checks are looked up in this server's state: see WriteBarrier.
            return writes.beforeWrite().thenCompose(ready -> serve(found, call, current));
        }
        return serve(found, call, current);
    }

    /** Runs a found route: authenticates the caller, checks the rule, then forwards to the leader or handles it. */
    private CompletionStage<ApiResponse> serve(Router.Found found, WireRequest call, Settings current) {
        ApiEndpoint endpoint = found.endpoint();
        if (tokenInHandshake(call, endpoint, current)) {
            // Its handler reads the token from the socket's first message and checks it (ws_handshake).
            call.deferAuthentication(token -> authenticate(Optional.ofNullable(token).filter(t -> !t.isEmpty()),
                    endpoint, current));
            calls.count(endpoint.name(), call.identity());
        } else {
            Identity caller = authenticate(call.token(), endpoint, current);
            calls.count(endpoint.name(), caller);
            if (!endpoint.rule().allows(caller, endpoint.namespace().apply(call))) {
                throw new CaravanException(ErrorCode.PERMISSION_DENIED, "Permission denied");
            }
            call.setIdentity(caller);
        }
        Optional<String> leader = endpoint.routing() == ApiEndpoint.Routing.LEADER ? leaderElsewhere(call)
                : Optional.empty();
        if (leader.isPresent()) {
            return toLeader(call, leader.get());
        }
        try {
            return found.handler().handle(call);
        } catch (Exception e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * The leader's RPC address when this server is not the leader and the call was not already forwarded once (a
     * leader that lost its place in between serves it rather than bounce it on); empty: serve here.
     */
    private Optional<String> leaderElsewhere(WireRequest call) {
        LeaderLocator servers = locator;
        if (servers == null || rpc == null || servers.isLeader() || call.header(HttpForward.FORWARDED).isPresent()) {
            return Optional.empty();
        }
        return servers.leaderRpcAddress();
    }

    /** Runs the call on the leader's API (through its RPC port) and answers with exactly what it answered. */
    private CompletionStage<ApiResponse> toLeader(WireRequest call, String leader) {
        return rpc.callAt(leader, HttpForward.METHOD, HttpForward.Call.of(call).forwarded(), HttpForward.Answer.class)
                .thenApply(HttpForward.Answer::toResponse);
    }

    /**
     * The caller, from its token: with ACLs off anyone may do anything; with them on, a missing resolver (a server
     * still starting, a client that has no server yet) refuses the call rather than let it through.
     */
    private Identity authenticate(Optional<String> token, ApiEndpoint endpoint, Settings current) {
        if (!current.aclEnabled()) {
            return Identity.UNRESTRICTED;
        }
        AclResolver acl = resolver;
        if (acl == null && token.isEmpty() && endpoint.rule() == AclRule.PUBLIC) {
            return Identity.anonymous(Acl.NONE);   // health checks work before (and without) a resolver
        }
        if (acl == null) {
            throw new CaravanException(ErrorCode.INTERNAL, "ACL resolution is not available yet");
        }
        return acl.resolve(token.orElse(null));
    }

    /**
     * A WebSocket upgrade, with ACLs on, to an endpoint that takes its token in the first message, that asks for that
     * ({@code ws_handshake} true, as Go's ParseBool reads it) and carries no token of its own.
     */
    private static boolean tokenInHandshake(WireRequest call, ApiEndpoint endpoint, Settings current) {
        return endpoint.tokenInHandshake() && current.aclEnabled() && call.token().isEmpty()
                && call.header("Upgrade").map(u -> u.equalsIgnoreCase("websocket")).orElse(false)
                && call.query("ws_handshake").map(v -> Set.of("1", "t", "true").contains(v.toLowerCase(Locale.ROOT)))
                        .orElse(false);
    }


    /** Sends the call to a server and answers with exactly what it answered. */
    private static CompletionStage<ApiResponse> forward(HttpServletRequest request, io.caravan.rpc.Rpc servers,
                                                        Settings current) {
        return servers.call(HttpForward.METHOD, HttpForward.Call.of(new WireRequest(request, Map.of(),
                current.region(), NomadJson.mapper(), current.maxRequestBody())), HttpForward.Answer.class)
                .thenApply(HttpForward.Answer::toResponse);
    }

    /**
     * Writes the answer or the error: a {@link CaravanException} by its code, any other throwable (an
     * {@link Error} included) as a logged 500. Only an I/O failure writing to the client leaves: it has gone.
     *
     * @return true when a {@link StreamingBody} took over the response (it completes the request itself)
     */
    private static boolean finish(HttpServletRequest request, HttpServletResponse response,
                                  CompletableFuture<ApiResponse> answer, long start) throws IOException {
        int status;
        boolean streaming = false;
        try {
            ApiResponse result = answer.join();
            streaming = write(request, response, result);
            status = result.status();
        } catch (IOException e) {
            if (!(e instanceof JsonProcessingException)) {
                throw e;
            }
            status = fail(request, response, e);
        } catch (Throwable thrown) {
            status = fail(request, response, thrown instanceof CompletionException && thrown.getCause() != null
                    ? thrown.getCause() : thrown);
        }
        if (LOG.isDebugEnabled()) {
            LOG.atDebug().addKeyValue("method", request.getMethod()).addKeyValue("path", request.getRequestURI())
                    .addKeyValue("status", status).addKeyValue("duration", (System.nanoTime() - start) / 1000 + "µs")
                    .log(streaming ? "stream started" : "request complete");
        }
        return streaming;
    }

    /** @return the status written for {@code e} */
    private static int fail(HttpServletRequest request, HttpServletResponse response, Throwable e)
            throws IOException {
        if (e instanceof CaravanException ce) {
            writeError(response, ce.code().httpStatus(), ce.getMessage());
            // A call refused before its body was read (a 403, a 413): the body is read and dropped, so that the
            // connection stays usable and the next call on it is not lost (clients do not retry a POST).
            drainRefused(request, response);
            return ce.code().httpStatus();
        }
        LOG.atError().addKeyValue("method", request.getMethod()).addKeyValue("path", request.getRequestURI())
                .addKeyValue("error", e.toString()).setCause(e).log("request failed");
        writeError(response, 500, e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
        return 500;
    }

    /** @return true when the body is a {@link StreamingBody}, which now owns the response */
    private static boolean write(HttpServletRequest request, HttpServletResponse response, ApiResponse answer)
            throws IOException {
        response.setStatus(answer.status());
        writeMeta(response, answer.meta());
        if (answer.body() == null) {
            response.setContentLength(0);
            return false;
        }
        if (answer.body() instanceof RawBody raw) {
            response.setContentType(raw.contentType());
            response.setHeader("X-Content-Type-Options", "nosniff");
            response.setContentLength(raw.bytes().length);
            response.getOutputStream().write(raw.bytes());
            return false;
        }
        if (answer.body() instanceof WebSocketBody socket) {
            if (!WebSocketUpgrade.upgrade(request, socket)) {
                writeError(response, 400, "expected a WebSocket upgrade request");
            }
            return false;
        }
        if (answer.body() instanceof StreamingBody body) {
            StreamingResponse.start(request, response, body);
            return true;
        }
        response.setContentType("application/json");
        String pretty = WireRequest.parseQuery(request.getQueryString()).getOrDefault("pretty", List.of()).stream()
                .findFirst().orElse(null);
        boolean indent = pretty != null && !pretty.equals("0");
        // Serialised first, so a serialisation failure is still a clean 500 and the length is known.
        byte[] json = NomadJson.writer(indent).writeValueAsBytes(answer.body());
        response.setContentLength(json.length + (indent ? 1 : 0));
        OutputStream out = response.getOutputStream();
        out.write(json);
        if (indent) {
            out.write('\n');
        }
        return false;
    }

    /** Go canonicalises header names, so these are the spellings Nomad clients see on the wire. */
    static void writeMeta(HttpServletResponse response, QueryMeta meta) {
        if (meta == null) {
            return;
        }
        response.setHeader("X-Nomad-Index", Long.toString(meta.index()));
        response.setHeader("X-Nomad-Knownleader", Boolean.toString(meta.knownLeader()));
        response.setHeader("X-Nomad-Lastcontact", Long.toString(meta.lastContactMillis()));
        if (meta.nextToken() != null && !meta.nextToken().isEmpty()) {
            response.setHeader("X-Nomad-Nexttoken", meta.nextToken());
        }
    }

    private static void writeError(HttpServletResponse response, int status, String message) throws IOException {
        if (response.isCommitted()) {
            return;
        }
        response.resetBuffer();
        response.setStatus(status);
        if (status == 413) {
            // The rest of the body is not read: close rather than drain it for the next request.
            response.setHeader("Connection", "close");
        }
        response.setContentType("text/plain; charset=utf-8");
        byte[] body = message.getBytes(StandardCharsets.UTF_8);
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }

    /**
     * After a 413, sends it and then reads and drops what the client is still sending, up to {@link #DRAIN_MAX}.
     * Closing a connection with unread bytes in it resets it, and a reset can destroy the answer before the client
     * reads it; a client still sending more than that loses the answer, as it would anywhere.
     */
    private static void drainRefused(HttpServletRequest request, HttpServletResponse response) {
        try {
            response.flushBuffer();
            if (request.getContentLengthLong() > DRAIN_MAX
                    || "100-continue".equalsIgnoreCase(request.getHeader("Expect"))) {
                return; // too much to wait for, or a client that sends nothing before a 100 Continue
            }
            InputStream in = request.getInputStream();
            byte[] buffer = new byte[64 * 1024];
            long left = DRAIN_MAX;
            int n;
            while (left > 0 && (n = in.read(buffer, 0, (int) Math.min(buffer.length, left))) > 0) {
                left -= n;
            }
        } catch (IOException e) {
            // The client is gone or the body is broken: the connection closes either way.
        }
    }

    /**
     * Nomad redirects {@code /} to its UI. The UI bundle ({@code io.caravan.ui}) answers {@code /ui/*} itself; only
     * when it is stopped or absent does {@code /ui/} reach this servlet, and then it leads to the web console.
     */
    private static void root(String path, Settings current, HttpServletResponse response) {
        if (path.equals("/")) {
            redirect(response, "/ui/");
        } else if (path.equals("/ui") || path.equals("/ui/")) {
            redirect(response, current.consoleRoot());
        } else {
            response.setStatus(404);
        }
    }

    private static void redirect(HttpServletResponse response, String location) {
        response.setStatus(307);
        response.setHeader("Location", location);
    }
}
