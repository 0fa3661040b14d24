package io.caravan.client.internal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.caravan.api.endpoint.NodeEndpoint;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.DriverInfo;
import io.caravan.api.model.Node;
import io.caravan.api.timer.SharedTimer;
import io.caravan.client.ClientAllocs;
import io.caravan.client.internal.alloc.AllocRunner;
import io.caravan.client.internal.alloc.AllocUpdateBatcher;
import io.caravan.client.internal.alloc.AllocWatcher;
import io.caravan.client.internal.alloc.HeartbeatStop;
import io.caravan.client.internal.alloc.RunnerServices;
import io.caravan.client.internal.alloc.ServerTemplateSource;
import io.caravan.client.internal.alloc.ServiceRegistrar;
import io.caravan.client.internal.driver.DriverManager;
import io.caravan.client.internal.fingerprint.FingerprintManager;
import io.caravan.client.internal.fingerprint.NodeFacts;
import io.caravan.client.internal.hooks.LogRotator;
import io.caravan.client.internal.node.BoundedNodeEndpoint;
import io.caravan.client.internal.node.NodeBuilder;
import io.caravan.client.internal.node.NodeRegistration;
import io.caravan.client.internal.state.ClientStateStore;
import io.caravan.client.internal.state.ClientStateStore.PersistedAlloc;
import io.caravan.metrics.MetricSink;
import io.caravan.plugin.api.driver.ExecSession;
import io.caravan.plugin.api.driver.TaskDriver;
import io.caravan.plugin.api.fingerprint.Fingerprinter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client agent without OSGi (the DS component {@link ClientAgent} wraps it; tests use it directly): it owns the
 * client's threads, the fingerprint and driver managers, node registration, the allocation watcher and update
 * batcher, and the alloc runners, restored from the state dir at start.
 *
 * <p>Threads: {@code caravan-client} (one scheduler: heartbeats, long-poll loop, batching, restart delays,
 * coordination), {@code caravan-client-worker-N} (blocking driver and hook calls, only while they run),
 * {@code caravan-fingerprint} and {@code caravan-log-rotator}. All stop in {@link #close()}; running tasks do not:
 * their handles are persisted and a new client re-attaches to them.
 */
public final class Client implements ClientAllocs, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Client.class);

    /** Tunables that tests shorten. */
    public record Timing(Duration driverPoll, Duration updateInterval, Duration maxWait, Duration logCheck) {
        public static final Timing DEFAULT = new Timing(DriverManager.POLL_INTERVAL, AllocUpdateBatcher.INTERVAL,
                AllocWatcher.MAX_WAIT, LogRotator.CHECK_INTERVAL);
    }

    /** Who the agent is; {@code httpTls}: its HTTP API is HTTPS (Nomad's Node.TLSEnabled). */
    public record AgentIdentity(String nodeId, String name, String datacenter, String httpAddr, boolean httpTls,
                                String version, Path dataDir) {
    }

    /** Replaced by a reload ({@link #reconfigure}); the state and alloc dirs in it never change (restart-only). */
    private volatile ClientSettings settings;
    private java.util.concurrent.ScheduledFuture<?> gcTimer;   // guarded by this
    private final AgentIdentity agent;
    private final ScheduledExecutorService scheduler;
    private final ExecutorService workers;
    private final ScheduledExecutorService fingerprintThread;
    private final ScheduledExecutorService logThread;
    private final ScheduledExecutorService logRotations;
    private final ClientStateStore state;
    private final String secretId;
    private final FingerprintManager fingerprints;
    private final DriverManager drivers;
    private final NodeRegistration registration;
    private final AllocUpdateBatcher updates;
    private final AllocWatcher watcher;
    private final LogRotator logs;
    private final RunnerServices services;
    private final Map<String, AllocRunner> runners = new ConcurrentHashMap<>();

    private volatile boolean closed;
    private volatile String introToken = "";
    private volatile NodeFacts facts = NodeFacts.EMPTY;
    private volatile Map<String, DriverInfo> driverInfos = Map.of();

    /** With threads of its own for fingerprinting and log rotation (tests). */
    public Client(ClientSettings settings, AgentIdentity agent, Clock clock, Timing timing) {
        this(settings, agent, clock, timing, null);
    }

    /**
     * @param shared the agent's shared timer: log checks run on it, log rotations and fingerprinting (which may block,
     *     e.g. on cloud metadata) on worker threads that exist only while they have work; null: threads of its own
     */
    public Client(ClientSettings settings, AgentIdentity agent, Clock clock, Timing timing, SharedTimer shared) {
        this.settings = settings;
        this.agent = agent;
        Random random = new Random();
        // State first: if the state dir is unusable, fail before any thread exists.
        this.state = new ClientStateStore(settings.stateDir());
        this.secretId = state.secretFor(agent.nodeId());
        this.scheduler = scheduler("caravan-client");
        // task starts and stops, state writes: threads for the moment, gone 5 s after (an idle client keeps none)
        this.workers = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 5, TimeUnit.SECONDS,
                new SynchronousQueue<>(), threads("caravan-client-worker-"));
        this.fingerprintThread = shared == null ? scheduler("caravan-fingerprint")
                : shared.worker("caravan-fingerprint");
        this.logThread = shared == null ? scheduler("caravan-log-rotator") : shared.timer("caravan-log-checks");
        this.logRotations = shared == null ? logThread : shared.worker("caravan-log-rotator");
        this.logs = new LogRotator(logThread, logRotations, timing.logCheck());
        this.fingerprints = new FingerprintManager(fingerprintThread, settings.fingerprintOptions(), agent.dataDir(),
                this::factsChanged);
        this.drivers = new DriverManager(scheduler, clock, timing.driverPoll(), new DriverManager.Listener() {
            @Override
            public void driversChanged(Map<String, DriverInfo> infos) {
                driverInfos = infos;
                registration.nodeChanged();
            }

            @Override
            public void driverBound(String name) {
                runners.values().forEach(r -> r.driverBound(name));
            }

            @Override
            public void driverUnbound(String name) {
                runners.values().forEach(r -> r.park(name));
            }
        });
        this.registration = new NodeRegistration(scheduler, this::node, new NodeRegistration.Listener() {
            @Override
            public void registered() {
                watcher.start();
            }

            @Override
            public void reconnected() {
                runners.values().forEach(AllocRunner::resend);
                // A poll held by a server that went silent may never answer: ask again, so stops decided while
                // this node was away reach it now.
                watcher.start();
            }
        }, random, new NodeRegistration.Credentials() {
            @Override
            public String registrationToken() {
                return Client.this.registrationToken();
            }

            @Override
            public void registered(String signedIdentity) {
                state.saveRegistration(signedIdentity);
            }
        });
        this.updates = new AllocUpdateBatcher(scheduler, timing.updateInterval(), this::target);
        this.watcher = new AllocWatcher(scheduler, this::target, new AllocWatcher.Sink() {
            @Override
            public void upsert(List<Allocation> changed) {
                changed.forEach(Client.this::upsert);
            }

            @Override
            public void removed(Set<String> allocIds) {
                allocIds.forEach(Client.this::forget);
            }

            @Override
            public void synced(boolean first) {
                if (first) {
                    // ready only once the servers have our view of the allocations (ARCHITECTURE §5)
                    updates.flush().thenRun(registration::allocsSynced);
                }
            }
        }, timing.maxWait());
        this.services = new RunnerServices(scheduler, workers, clock, random, drivers::driver, this::node, state,
                logs, updates::offer, settings.allocDir(), () -> this.settings.maxKillTimeout(),
                () -> this.settings.artifactSandbox(),
                new ServiceRegistrar(scheduler, this::target), new ServerTemplateSource(this::target),
                this::signIdentities);
    }

    private static ScheduledExecutorService scheduler(String name) {
        ScheduledThreadPoolExecutor pool = new ScheduledThreadPoolExecutor(1, threads(name));
        pool.setRemoveOnCancelPolicy(true);
        return pool;
    }

    private static ThreadFactory threads(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix.endsWith("-") ? prefix + n.incrementAndGet() : prefix);
            t.setDaemon(true);
            return t;
        };
    }

    /** Restores persisted allocations, starts fingerprinting, driver polling and (once an endpoint exists) registration. */
    public void start() {
        try {
            Files.createDirectories(settings.allocDir());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot create alloc dir " + settings.allocDir(), e);
        }
        restore();
        scheduleGc();
        scheduler.scheduleWithFixedDelay(this::stopWhenCutOff, 1, 1, TimeUnit.SECONDS);
        fingerprints.start();
        drivers.start();
        registration.start();
        LOG.atInfo().addKeyValue("node_id", agent.nodeId()).addKeyValue("state_dir", settings.stateDir())
                .addKeyValue("alloc_dir", settings.allocDir()).log("client started");
    }

    /** Stops the allocations whose {@code stop_on_client_after} has passed since the node last reached a server. */
    private void stopWhenCutOff() {
        long last = registration.lastContactNanos();
        if (last == 0) {
            return; // never registered: nothing was placed here by anyone who could replace it
        }
        Duration since = Duration.ofNanos(System.nanoTime() - last);
        for (AllocRunner runner : runners.values()) {
            if (!runner.terminal() && HeartbeatStop.due(runner.alloc(), since)) {
                LOG.atWarn().addKeyValue("alloc_id", runner.allocId()).addKeyValue("since_contact", since)
                        .log("no server reached within the group's stop_on_client_after: stopping the allocation");
                runner.stop();
            }
        }
    }

    private void restore() {
        for (PersistedAlloc saved : state.loadAllocs()) {
            AllocRunner runner = new AllocRunner(services, saved.alloc(), saved, this::destroyed);
            runners.put(saved.alloc().id(), runner);
            runner.run();
            LOG.atInfo().addKeyValue("alloc_id", saved.alloc().id()).log("allocation restored");
        }
        watcher.knownAtStart(runners.keySet());
    }

    @Override
    public void close() {
        closed = true; // DS unbinds after deactivation: those are no-ops now
        registration.stop();
        watcher.stop();
        drivers.stop();
        logs.close();
        fingerprintThread.shutdownNow();
        logThread.shutdownNow();
        logRotations.shutdownNow();
        scheduler.shutdownNow();
        // Let state writes in flight finish (a bounded wait: a driver stop may take its whole kill_timeout).
        workers.shutdown();
        try {
            workers.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        workers.shutdownNow();
        LOG.atInfo().addKeyValue("node_id", agent.nodeId()).log("client stopped; tasks keep running");
    }

    /** Nomad's file for the client introduction token, in the client's state dir. */
    public static final String INTRO_TOKEN_FILE = "intro_token.jwt";

    /**
     * The client introduction token from the agent's flag, environment or {@code client.intro_token} (set before
     * {@link #start()}); without one, {@code <state_dir>/intro_token.jwt} is read at registration.
     */
    /**
     * A reload with a changed {@code client} block: the client keeps running with its tasks. What shapes the node
     * (class, pool, meta, resources, reserved, ...) is sent to the servers as a node update, only if the node changed;
     * the fingerprinters run again with new options; {@code max_kill_timeout} applies to the next kill, the artifact
     * sandbox to the next download, the GC settings to the next pass.
     */
    public void reconfigure(ClientSettings next) {
        Node before = node();
        ClientSettings was = settings;
        settings = next;
        fingerprints.options(next.fingerprintOptions());
        if (!next.gcInterval().equals(was.gcInterval())) {
            scheduleGc();
        }
        if (!node().equals(before)) {
            registration.nodeChanged();
        }
        LOG.info("client configuration reloaded");
    }

    /** Starts the garbage collection timer, or restarts it at the interval now configured. */
    private synchronized void scheduleGc() {
        if (gcTimer != null) {
            gcTimer.cancel(false);
        }
        long gcMillis = Math.max(1, settings.gcInterval().toMillis());
        gcTimer = scheduler.scheduleWithFixedDelay(this::collectGarbage, gcMillis, gcMillis, TimeUnit.MILLISECONDS);
    }

    public void introToken(String token) {
        introToken = token == null ? "" : token.trim();
    }

    /**
     * What a registration presents (Nomad 1.11): once the node has registered, its node identity (so servers that
     * forgot the node let it back); before, the introduction token. Never logged.
     */
    private String registrationToken() {
        ClientStateStore.Registration done = state.registration();
        if (done.hasRegistered()) {
            return done.signedIdentity();
        }
        if (!introToken.isEmpty()) {
            return introToken;
        }
        Path file = settings.stateDir().resolve(INTRO_TOKEN_FILE);
        if (Files.isDirectory(file)) {
            LOG.atError().addKeyValue("path", file).log("client introduction token file is a directory: ignored");
        } else if (Files.isRegularFile(file)) {
            try {
                return Files.readString(file).trim();
            } catch (java.io.IOException e) {
                LOG.atError().addKeyValue("path", file).addKeyValue("error", e.getMessage())
                        .log("cannot read the client introduction token file");
            }
        }
        return "";
    }

    // -------------------------------------------------------------------------------------- bindings

    public void endpoint(NodeEndpoint endpoint) {
        if (closed) {
            return;
        }
        registration.endpoint(endpoint == null ? null : new BoundedNodeEndpoint(endpoint, scheduler));
        if (endpoint == null) {
            watcher.stop();
        }
    }

    public void bindFingerprinter(String name, String phase, Fingerprinter fingerprinter) {
        if (closed) {
            return;
        }
        fingerprints.bind(name, phase, fingerprinter);
    }

    public void unbindFingerprinter(Fingerprinter fingerprinter) {
        if (closed) {
            return;
        }
        fingerprints.unbind(fingerprinter);
    }

    public void bindDriver(String name, TaskDriver driver) {
        if (closed) {
            return;
        }
        drivers.bind(name, driver);
    }

    public void unbindDriver(String name, TaskDriver driver) {
        if (closed) {
            return;
        }
        drivers.unbind(name, driver);
    }

    // ----------------------------------------------------------------------------------------- node

    /** This node's metrics ({@code publish_node_metrics}). */
    public void sample(MetricSink sink) {
        ClientMetrics.report(sink, node(), runners.values(), settings.allocDir());
    }

    /** The node as registered now (status is the one the server last accepted). */
    public Node node() {
        Node built = NodeBuilder.build(new NodeBuilder.Identity(agent.nodeId(), secretId, agent.name(),
                agent.datacenter(), agent.httpAddr(), agent.httpTls(), agent.version()), settings, facts, driverInfos);
        return built.withStatus(registration == null ? Node.STATUS_INITIALIZING : registration.status(), "", 0);
    }

    private void factsChanged(NodeFacts merged) {
        facts = merged;
        registration.nodeChanged();
    }

    /** Where alloc calls go: nowhere until the servers know the node (they would answer "node not found"). */
    /** Workload identities are signed by the servers, once this node is registered. */
    private java.util.concurrent.CompletionStage<java.util.List<NodeEndpoint.SignedIdentity>> signIdentities(
            java.util.List<NodeEndpoint.IdentityRequest> requests) {
        AllocUpdateBatcher.Target t = target();
        if (t == null) {
            return java.util.concurrent.CompletableFuture.failedFuture(
                    new IllegalStateException("the node is not registered with a server yet"));
        }
        return t.endpoint().signIdentities(t.nodeId(), t.secretId(), requests);
    }

    private AllocUpdateBatcher.Target target() {
        NodeEndpoint ep = registration.endpoint();
        return ep == null || !registration.registered() ? null
                : new AllocUpdateBatcher.Target(ep, agent.nodeId(), secretId);
    }

    public String secretId() {
        return secretId;
    }

    public NodeRegistration registration() {
        return registration;
    }

    // ------------------------------------------------------------------------------------ allocations

    private void upsert(Allocation alloc) {
        AllocRunner existing = runners.get(alloc.id());
        if (existing != null) {
            existing.update(alloc);
            return;
        }
        if (alloc.terminal()) {
            return; // stopped before it ever ran here: nothing to run (Nomad skips these too)
        }
        AllocRunner runner = new AllocRunner(services, alloc, null, this::destroyed);
        runners.put(alloc.id(), runner);
        LOG.atInfo().addKeyValue("alloc_id", alloc.id()).addKeyValue("job_id", alloc.jobId())
                .log("allocation received");
        runner.run();
    }

    /**
     * Nomad's client GC, by count only: when more than {@code gc_max_allocs} allocations are kept, the oldest finished
     * ones are destroyed (directory and state). The servers may still list them; a terminal allocation is never run
     * again (see {@link #upsert}). Disk and inode thresholds are not implemented.
     */
    void collectGarbage() {
        int excess = runners.size() - settings.gcMaxAllocs();
        if (excess <= 0) {
            return;
        }
        runners.values().stream().filter(AllocRunner::terminal).filter(r -> r.finishedAt() != null)
                .sorted(Comparator.comparing(AllocRunner::finishedAt)).limit(excess)
                .forEach(r -> {
                    LOG.atInfo().addKeyValue("alloc_id", r.allocId()).log("garbage collecting allocation");
                    r.destroy();
                });
    }

    private void forget(String allocId) {
        AllocRunner runner = runners.get(allocId);
        if (runner != null) {
            runner.destroy();
        }
    }

    private void destroyed(AllocRunner runner) {
        runners.remove(runner.allocId(), runner);
    }

    public Optional<AllocRunner> runner(String allocId) {
        return Optional.ofNullable(runners.get(allocId));
    }

    // ------------------------------------------------------------------------------------ ClientAllocs

    @Override
    public String nodeId() {
        return agent.nodeId();
    }

    @Override
    public Set<String> allocIds() {
        return new TreeSet<>(runners.keySet());
    }

    @Override
    public Optional<Path> allocDir(String allocId) {
        return runner(allocId).map(r -> r.allocDir().root());
    }

    @Override
    public Optional<String> namespace(String allocId) {
        return runner(allocId).map(r -> r.alloc().namespace());
    }

    @Override
    public Optional<Allocation> alloc(String allocId) {
        return runner(allocId).map(AllocRunner::alloc);
    }

    @Override
    public void restart(String allocId, String taskName) {
        runner(allocId).orElseThrow(() -> new IllegalArgumentException("Unknown allocation \"" + allocId + "\""))
                .restart(taskName);
    }

    @Override
    public boolean gc(String allocId) {
        AllocRunner runner = runner(allocId)
                .orElseThrow(() -> new IllegalArgumentException("Unknown allocation \"" + allocId + "\""));
        if (!runner.terminal()) {
            return false;
        }
        runner.destroy();
        return true;
    }

    @Override
    public void signal(String allocId, String taskName, String signal) {
        runner(allocId).orElseThrow(() -> new IllegalArgumentException("Unknown allocation \"" + allocId + "\""))
                .signal(taskName, signal);
    }

    @Override
    public ExecSession exec(String allocId, String taskName, List<String> argv, boolean tty) {
        return known(allocId).task(taskName).exec(argv, tty);
    }

    @Override
    public boolean fsIsolated(String allocId, String taskName) {
        return known(allocId).task(taskName).fsIsolated();
    }

    @Override
    public Map<String, List<Long>> taskPids(String allocId) {
        return known(allocId).taskPids();
    }

    @Override
    public Map<String, ?> checks(String allocId) {
        return known(allocId).checks().results();
    }

    private AllocRunner known(String allocId) {
        return runner(allocId).orElseThrow(() -> new IllegalArgumentException("Unknown allocation \"" + allocId + "\""));
    }
}
