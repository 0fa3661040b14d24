package io.caravan.client.internal.alloc;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.caravan.api.model.Service;
import io.caravan.api.model.ServiceCheck;
import io.caravan.plugin.api.driver.ExecResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The service checks of one allocation ({@code provider = "nomad"}), run by the client: {@code http}, {@code tcp}
 * and {@code script} (through the task driver's exec) every {@code interval}, each bounded by {@code timeout}. The
 * latest result of each is Nomad's {@code CheckQueryResult}; {@code check_restart} restarts the task after
 * {@code limit} failures in a row once {@code grace} has passed since the checks started. A change of status calls
 * {@code onChange} (the runner re-decides deployment health).
 */
public final class AllocChecks {
    static final String SUCCESS = "success";
    static final String FAILURE = "failure";
    static final String PENDING = "pending";
    static final String MODE_HEALTHINESS = "healthiness";
    static final String MODE_READINESS = "readiness";
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);
    private static final int MAX_OUTPUT = 4096;
    private static final Logger LOG = LoggerFactory.getLogger(AllocChecks.class);

    /** Runs a command inside a task ({@code script} checks). */
    public interface ScriptExec {
        ExecResult exec(String task, List<String> argv, Duration timeout) throws Exception;
    }

    /** Restarts a task ({@code check_restart}); false when it was not running. */
    public interface Restarter {
        boolean restart(String task, String reason);
    }

    /** Nomad's {@code CheckQueryResult}. */
    public record Result(String id, String mode, String status,
                         @JsonInclude(JsonInclude.Include.NON_DEFAULT) int statusCode, String output, long timestamp,
                         String group, @JsonInclude(JsonInclude.Include.NON_EMPTY) String task, String service,
                         String check) {}

    /** What a check probes, resolved when its service was registered. */
    public record Target(String owner, String group, String task, Service service, String serviceName,
                         ServiceCheck check, String address, int port) {}

    private final String allocId;
    private final ScheduledExecutorService scheduler;
    private final Executor workers;
    private final Clock clock;
    private final ScriptExec exec;
    private final Restarter restarter;
    private final Runnable onChange;
    private final Map<String, Running> running = new ConcurrentHashMap<>();

    public AllocChecks(String allocId, ScheduledExecutorService scheduler, Executor workers, Clock clock,
                       ScriptExec exec, Restarter restarter, Runnable onChange) {
        this.allocId = allocId;
        this.scheduler = scheduler;
        this.workers = workers;
        this.clock = clock;
        this.exec = exec;
        this.restarter = restarter;
        this.onChange = onChange;
    }

    private final class Running {
        final Target target;
        final String id;
        final Instant started;
        volatile Result result;
        volatile ScheduledFuture<?> timer;
        volatile boolean stopped;
        int failures;

        Running(Target target, String id) {
            this.target = target;
            this.id = id;
            this.started = clock.instant();
            this.result = new Result(id, mode(target), PENDING, 0, "", 0, target.group(),
                    target.task(), target.serviceName(), target.check().name());
        }
    }

    /** Starts the checks of {@code targets} not running yet (a check already running keeps its state). */
    public void start(List<Target> targets) {
        for (Target t : targets) {
            String id = checkId(allocId, t);
            running.computeIfAbsent(id, k -> {
                Running r = new Running(t, id);
                schedule(r, Duration.ZERO);
                return r;
            });
        }
    }

    /** Stops the checks registered by {@code owner} (a task name, or "group"). */
    public void stop(String owner) {
        running.values().removeIf(r -> {
            if (r.target.owner().equals(owner)) {
                cancel(r);
                return true;
            }
            return false;
        });
        onChange.run();
    }

    public void stopAll() {
        running.values().forEach(this::cancel);
        running.clear();
    }

    private void cancel(Running r) {
        r.stopped = true;
        ScheduledFuture<?> t = r.timer;
        if (t != null) {
            t.cancel(false);
        }
    }

    /** The latest result of every check, by check ID. */
    public Map<String, Result> results() {
        Map<String, Result> out = new LinkedHashMap<>();
        running.values().forEach(r -> out.put(r.id, r.result));
        return out;
    }

    /**
     * Whether the checks that count for health pass ({@code on_update = "ignore"} ones do not count): true, false
     * when any failed, null while any is pending. True with no checks.
     */
    public Boolean passing() {
        boolean pending = false;
        for (Running r : running.values()) {
            if (MODE_READINESS.equals(r.result.mode())) {
                continue;
            }
            switch (r.result.status()) {
                case FAILURE -> {
                    return false;
                }
                case PENDING -> pending = true;
                default -> { }
            }
        }
        return pending ? null : true;
    }

    public boolean isEmpty() {
        return running.isEmpty();
    }

    private void schedule(Running r, Duration delay) {
        if (r.stopped) {
            return;
        }
        r.timer = scheduler.schedule(() -> workers.execute(() -> runOnce(r)), delay.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    private void runOnce(Running r) {
        if (r.stopped) {
            return;
        }
        ServiceCheck c = r.target.check();
        Result result;
        try {
            result = probe(r);
        } catch (RuntimeException e) {
            result = result(r, FAILURE, 0, String.valueOf(e.getMessage()));
        }
        Result before = r.result;
        r.result = result;
        if (!before.status().equals(result.status())) {
            LOG.atDebug().addKeyValue("alloc_id", allocId).addKeyValue("check", c.name())
                    .addKeyValue("status", result.status()).log("check status changed");
            onChange.run();
        }
        checkRestart(r, result);
        Duration interval = c.interval() == null || c.interval().isZero() ? Duration.ofSeconds(10) : c.interval();
        schedule(r, interval);
    }

    private void checkRestart(Running r, Result result) {
        Service.CheckRestart policy = r.target.check().checkRestart() != null ? r.target.check().checkRestart()
                : r.target.service().checkRestart();
        if (policy == null || policy.limit() <= 0) {
            return;
        }
        if (SUCCESS.equals(result.status())) {
            r.failures = 0;
            return;
        }
        Duration grace = policy.grace() == null ? Duration.ofSeconds(1) : policy.grace();
        if (clock.instant().isBefore(r.started.plus(grace))) {
            return;
        }
        if (++r.failures >= policy.limit()) {
            r.failures = 0;
            String task = r.target.task();
            if (task != null && !task.isEmpty()) {
                restarter.restart(task, "healthcheck: check " + quote(r.target.check().name()) + " unhealthy");
            }
        }
    }

    private Result probe(Running r) {
        ServiceCheck c = r.target.check();
        Duration timeout = c.timeout() == null || c.timeout().isZero() ? DEFAULT_TIMEOUT : c.timeout();
        return switch (c.type()) {
            case ServiceCheck.TYPE_HTTP -> http(r, timeout);
            case ServiceCheck.TYPE_TCP -> tcp(r, timeout);
            case ServiceCheck.TYPE_SCRIPT -> script(r, timeout);
            default -> result(r, FAILURE, 0, "check type " + quote(c.type()) + " is not supported");
        };
    }

    private Result http(Running r, Duration timeout) {
        ServiceCheck c = r.target.check();
        String protocol = c.protocol() == null || c.protocol().isEmpty() ? "http" : c.protocol();
        String path = c.path() == null || c.path().isEmpty() ? "/" : c.path();
        String host = r.target.address().contains(":") ? "[" + r.target.address() + "]" : r.target.address();
        URI uri = URI.create(protocol + "://" + host + ":" + r.target.port() + (path.startsWith("/") ? "" : "/")
                + path);
        String method = c.method() == null || c.method().isEmpty() ? "GET" : c.method();
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(timeout)
                .method(method, c.body() == null || c.body().isEmpty() ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(c.body()));
        c.header().forEach((name, values) -> values.forEach(v -> request.header(name, v)));
        try {
            HttpResponse<byte[]> response = client(c.tlsSkipVerify()).send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
            int code = response.statusCode();
            String output = "HTTP " + method + " " + uri + ": " + code + " Output: "
                    + truncate(new String(response.body(), StandardCharsets.UTF_8));
            return result(r, code >= 200 && code < 300 ? SUCCESS : FAILURE, code, output);
        } catch (IOException e) {
            return result(r, FAILURE, 0, "HTTP " + method + " " + uri + ": " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return result(r, FAILURE, 0, "interrupted");
        }
    }

    /**
     * The HTTP clients of every allocation's checks, by TLS mode, made at the first check that needs one: each JDK
     * client holds a selector thread for as long as it lives, so one per allocation left a thread per allocation with
     * HTTP checks. Requests carry their own timeouts.
     */
    private static final class Clients {
        static final HttpClient VERIFYING = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
                .connectTimeout(DEFAULT_TIMEOUT).build();
    }

    private static final class TrustingClients {
        static final HttpClient TRUSTING = trusting();

        private static HttpClient trusting() {
            SSLParameters params = new SSLParameters();
            params.setEndpointIdentificationAlgorithm("");
            return HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
                    .connectTimeout(DEFAULT_TIMEOUT).sslContext(trustAll()).sslParameters(params).build();
        }
    }

    private static HttpClient client(boolean skipVerify) {
        return skipVerify ? TrustingClients.TRUSTING : Clients.VERIFYING;
    }

    private Result tcp(Running r, Duration timeout) {
        String where = r.target.address() + ":" + r.target.port();
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(r.target.address(), r.target.port()), (int) timeout.toMillis());
            return result(r, SUCCESS, 0, "TCP connect " + where + ": Success");
        } catch (IOException e) {
            return result(r, FAILURE, 0, "TCP connect " + where + ": " + e.getMessage());
        }
    }

    private Result script(Running r, Duration timeout) {
        ServiceCheck c = r.target.check();
        List<String> argv = new ArrayList<>();
        argv.add(c.command());
        argv.addAll(c.args());
        try {
            ExecResult out = exec.exec(r.target.task(), argv, timeout);
            String output = truncate(new String(out.stdout(), StandardCharsets.UTF_8)
                    + new String(out.stderr(), StandardCharsets.UTF_8));
            return result(r, out.exitCode() == 0 ? SUCCESS : FAILURE, out.exitCode(), output);
        } catch (Exception e) {
            return result(r, FAILURE, 0, "script check: " + e.getMessage());
        }
    }

    private Result result(Running r, String status, int code, String output) {
        return new Result(r.id, mode(r.target), status, code, output, clock.instant().getEpochSecond(),
                r.target.group(), r.target.task(), r.target.serviceName(), r.target.check().name());
    }

    /**
     * Nomad's check mode: a check whose results do not count for health ({@code on_update = "ignore"}, the check's
     * own or its service's) is readiness.
     */
    static String mode(Target t) {
        String onUpdate = t.check().onUpdate() == null || t.check().onUpdate().isEmpty() ? t.service().onUpdate()
                : t.check().onUpdate();
        return Service.ON_UPDATE_IGNORE.equals(onUpdate) ? MODE_READINESS : MODE_HEALTHINESS;
    }

    /** A stable ID per allocation, owner, service and check (Nomad hashes the same parts). */
    static String checkId(String allocId, Target t) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-1");
            for (String part : List.of(allocId, t.owner(), t.serviceName(), t.check().name() == null ? ""
                    : t.check().name(), t.check().type())) {
                sha.update(part.getBytes(StandardCharsets.UTF_8));
                sha.update((byte) 0);
            }
            return HexFormat.of().formatHex(sha.digest()).substring(0, 32);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String truncate(String s) {
        return s.length() <= MAX_OUTPUT ? s : s.substring(0, MAX_OUTPUT);
    }

    private static String quote(String s) {
        return "\"" + s + "\"";
    }

    private static SSLContext trustAll() {
        try {
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, new TrustManager[] {new X509TrustManager() {
                public void checkClientTrusted(X509Certificate[] chain, String authType) { }

                public void checkServerTrusted(X509Certificate[] chain, String authType) { }

                public X509Certificate[] getAcceptedIssuers() {
                    return new X509Certificate[0];
                }
            }}, null);
            return ctx;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
