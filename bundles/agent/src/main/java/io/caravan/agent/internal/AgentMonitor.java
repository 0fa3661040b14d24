package io.caravan.agent.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.Consumer;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.Access;
import io.caravan.api.acl.AclRule;
import io.caravan.api.acl.Scope;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiRequest;
import io.caravan.http.ApiResponse;
import io.caravan.http.ApiRoutes;
import io.caravan.http.BodyWriter;
import io.caravan.http.RouteTable;
import io.caravan.http.StreamingBody;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicyOption;

/**
 * Nomad's {@code GET /v1/agent/monitor}: this agent's own log, live, from the moment of the call, at the level the
 * caller asks ({@code log_level}, default info, even below the agent's own) in text or JSON ({@code log_json}).
 * Lines come from the launcher's log tap (the SLF4J provider on the launcher class path, which every bundle's logger
 * goes through). Framed as Nomad's {@code StreamFrame}s ({@code {"Data": base64}}) unless {@code plain=true}.
 * One shared pump thread serves every monitor; a reader slower than the log loses lines (counted, and said so in
 * the stream) rather than holding memory or the logging threads.
 */
@Component(service = ApiRoutes.class, configurationPid = PidTranslator.AGENT_PID,
        configurationPolicy = ConfigurationPolicy.REQUIRE)
public final class AgentMonitor implements ApiRoutes {
    static final ApiEndpoint MONITOR = ApiEndpoint.of("Agent.Monitor", AclRule.scope(Scope.AGENT, Access.READ));
    static final Set<String> LEVELS = Set.of("TRACE", "DEBUG", "INFO", "WARN", "WARNING", "ERROR", "ERR");
    /** Lines a monitor may hold for a slow reader before it drops. */
    static final int BUFFER_LINES = 512;
    static final long PUMP_MILLIS = 100;
    static final long HEARTBEAT_MILLIS = 5000;

    @Reference(service = BiFunction.class, target = "(caravan.launcher=log-tap)",
            cardinality = ReferenceCardinality.OPTIONAL, policyOption = ReferencePolicyOption.GREEDY)
    private volatile BiFunction<String, Consumer<String>, AutoCloseable> logTap;

    private final ScheduledExecutorService pump = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "caravan-monitor");
        t.setDaemon(true);
        return t;
    });
    private volatile AgentPidConfig config;
    private final Set<Stream> running = java.util.concurrent.ConcurrentHashMap.newKeySet();

    @Activate
    public AgentMonitor(AgentPidConfig config) {
        this.config = config;
    }

    /** For tests: a tap given directly. */
    AgentMonitor(AgentPidConfig config, BiFunction<String, Consumer<String>, AutoCloseable> tap) {
        this(config);
        this.logTap = tap;
    }

    @Modified
    void modified(AgentPidConfig config) {
        this.config = config;
    }

    @Deactivate
    void deactivate() {
        pump.shutdownNow();
        running.forEach(Stream::finish);
    }

    @Override
    public void register(RouteTable routes) {
        routes.get("/v1/agent/monitor", MONITOR, this::monitor);
    }

    ApiResponse monitor(ApiRequest r) {
        AgentPidConfig c = config;
        Optional<String> node = r.query("node_id").filter(id -> !id.isEmpty());
        Optional<String> server = r.query("server_id").filter(id -> !id.isEmpty());
        if (node.isPresent() && server.isPresent()) {
            throw CaravanException.badRequest("Cannot target node and server simultaneously");
        }
        if (node.isPresent() && !AgentRoutes.isThisNode(c, node.get())
                || server.isPresent() && !AgentRoutes.isThisServer(c, server.get())) {
            throw new CaravanException(ErrorCode.NOT_IMPLEMENTED, "Caravan monitors only the agent asked; ask the "
                    + "agent at its own address");
        }
        String level = r.query("log_level").filter(l -> !l.isEmpty()).orElse("info").toUpperCase(Locale.ROOT);
        if (!LEVELS.contains(level)) {
            throw CaravanException.badRequest("Unknown log level: " + r.query("log_level").orElse(""));
        }
        level = level.equals("ERR") ? "ERROR" : level;
        boolean json = bool(r, "log_json");
        boolean plain = bool(r, "plain");
        BiFunction<String, Consumer<String>, AutoCloseable> tap = logTap;
        if (tap == null) {
            throw new CaravanException(ErrorCode.NOT_IMPLEMENTED, "this agent's log cannot be monitored "
                    + "(no log tap: it was not started by the Caravan launcher)");
        }
        return ApiResponse.stream(new Stream(tap, level + (json ? " json" : ""), plain));
    }

    private static boolean bool(ApiRequest r, String name) {
        String v = r.query(name).orElse("false");
        if (!Set.of("true", "false", "1", "0", "").contains(v)) {
            throw CaravanException.invalid(name, "must be true or false");
        }
        return v.equals("true") || v.equals("1");
    }

    /** One monitor: lines queue from the tap, and the pump writes them when the reader can take them. */
    final class Stream implements StreamingBody {
        private final BiFunction<String, Consumer<String>, AutoCloseable> tap;
        private final String spec;
        private final boolean plain;
        private final ConcurrentLinkedQueue<String> lines = new ConcurrentLinkedQueue<>();
        private final AtomicInteger queued = new AtomicInteger();
        private final AtomicInteger dropped = new AtomicInteger();
        private volatile BodyWriter out;
        private AutoCloseable handle;
        private byte[] pending;
        private long lastWrite = System.currentTimeMillis();

        Stream(BiFunction<String, Consumer<String>, AutoCloseable> tap, String spec, boolean plain) {
            this.tap = tap;
            this.spec = spec;
            this.plain = plain;
        }

        @Override
        public String contentType() {
            return plain ? "text/plain; charset=utf-8" : "application/json";
        }

        @Override
        public void start(BodyWriter writer) {
            out = writer;
            handle = tap.apply(spec, this::offer);
            running.add(this);
            pump.schedule(this::turn, 0, TimeUnit.MILLISECONDS);
        }

        /** Runs on whichever thread logs: never blocks, never logs. */
        void offer(String line) {
            if (queued.incrementAndGet() > BUFFER_LINES) {
                queued.decrementAndGet();
                dropped.incrementAndGet();
                return;
            }
            lines.add(line);
        }

        private void turn() {
            try {
                if (out.closed()) {
                    finish();
                    return;
                }
                if (pending == null) {
                    pending = next();
                }
                if (pending != null) {
                    if (!out.write(pending)) {
                        pump.schedule(this::turn, 20, TimeUnit.MILLISECONDS);
                        return;
                    }
                    pending = null;
                    lastWrite = System.currentTimeMillis();
                    if (!lines.isEmpty()) {
                        pump.schedule(this::turn, 0, TimeUnit.MILLISECONDS);
                        return;
                    }
                } else if (!plain && System.currentTimeMillis() - lastWrite >= HEARTBEAT_MILLIS) {
                    // An empty frame: how a reader that went away is noticed while the log is quiet.
                    pending = "{}".getBytes(StandardCharsets.US_ASCII);
                    pump.schedule(this::turn, 0, TimeUnit.MILLISECONDS);
                    return;
                }
                pump.schedule(this::turn, PUMP_MILLIS, TimeUnit.MILLISECONDS);
            } catch (IOException | RuntimeException e) {
                finish();
            }
        }

        /** What is queued, as one frame (or plain bytes); null when nothing is. */
        private byte[] next() {
            ByteArrayOutputStream data = new ByteArrayOutputStream();
            int lost = dropped.getAndSet(0);
            if (lost > 0) {
                data.writeBytes(("[WARN] monitor: dropped " + lost + " log lines: the reader was too slow\n")
                        .getBytes(StandardCharsets.UTF_8));
            }
            for (String line; data.size() < 64 * 1024 && (line = lines.poll()) != null; ) {
                queued.decrementAndGet();
                data.writeBytes((line + "\n").getBytes(StandardCharsets.UTF_8));
            }
            if (data.size() == 0) {
                return null;
            }
            return plain ? data.toByteArray() : ("{\"Data\":\"" + Base64.getEncoder().encodeToString(
                    data.toByteArray()) + "\"}").getBytes(StandardCharsets.US_ASCII);
        }

        private void finish() {
            running.remove(this);
            try {
                if (handle != null) {
                    handle.close();
                }
            } catch (Exception e) {
                // Closing a tap cannot fail in a way that matters here.
            }
            out.close();
        }
    }
}
