package io.caravan.agent.internal;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

import io.caravan.agent.AgentConfigService;
import io.caravan.agent.GracefulLeave;
import io.caravan.agent.LastReload;
import io.caravan.agent.ReloadReport;
import io.caravan.agent.UnsupportedKey;
import io.caravan.agent.internal.config.ConfigDiff;
import io.caravan.agent.internal.config.ConfigView;
import io.caravan.agent.internal.config.Schema;
import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.agent.internal.config.ConfigException;
import io.caravan.agent.internal.config.ConfigLoader;
import io.caravan.tls.TlsException;
import io.caravan.tls.TlsMaterial;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent process: reads the command line the launcher was given, resolves the configuration, takes the data
 * dir, writes every component's configuration, prints the banner, and handles signals — SIGHUP reloads, SIGINT and
 * SIGTERM stop (leaving the cluster first when configured). It is also the {@link AgentConfigService}. A bad command line or configuration stops the agent
 * with exit code 1 and one line on stderr.
 */
@Component(immediate = true, service = {AgentConfigService.class, io.caravan.agent.AgentShutdown.class})
public final class AgentRuntime implements AgentConfigService, io.caravan.agent.AgentShutdown {
    static final String AGENT_ARGS = "caravan.agent.args";
    private static final Logger LOG = LoggerFactory.getLogger(AgentRuntime.class);
    /** How long systemd's READY=1 waits for the HTTP API to open (systemd's own start timeout may be shorter). */
    private static final long READY_LIMIT_MS = 300_000;
    private static final Duration LEAVE_TIMEOUT = Duration.ofSeconds(30);

    private final BundleContext context;
    private final ConfigApplier applier;
    private final List<String> args;
    private final String version;
    private final List<GracefulLeave> leaves = new CopyOnWriteArrayList<>();
    private final AtomicBoolean stopping = new AtomicBoolean();
    /** Tells systemd (Type=notify) when the agent is ready, reloading or stopping; does nothing outside systemd. */
    private final SystemdNotify systemd = SystemdNotify.fromEnvironment();

    @Reference(target = "(caravan.launcher=shutdown)", cardinality = ReferenceCardinality.OPTIONAL,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile IntConsumer launcherShutdown;

    @Reference(service = Consumer.class, target = "(caravan.launcher=log-level)",
            cardinality = ReferenceCardinality.OPTIONAL, policyOption = ReferencePolicyOption.GREEDY)
    private volatile Consumer<String> launcherLogLevel;

    @Reference(service = Consumer.class, target = "(caravan.launcher=log-format)",
            cardinality = ReferenceCardinality.OPTIONAL, policyOption = ReferencePolicyOption.GREEDY)
    private volatile Consumer<String> launcherLogFormat;

    private volatile AgentSettings settings;
    /** The configuration in force: what /v1/agent/self shows and what the next reload is compared with. */
    private volatile ConfigView running;
    /** The keys the configuration in force sets that Caravan does not act on yet. */
    private volatile List<UnsupportedKey> unsupported = List.of();
    /** The outcome of the last reload, for the web console; null before the first. */
    private volatile LastReload lastReload;
    private Path devDataDir;
    private DataDir dataDir;
    private int raftPortInUse;     // chosen at start; Raft cannot move while running
    /** The TLS files in force, read and checked; a reload compares their contents, not only their paths. */
    private volatile TlsMaterial tls;
    private Signals signals;

    @Activate
    public AgentRuntime(BundleContext context, @Reference ConfigurationAdmin configAdmin) {
        this.context = context;
        this.applier = new ConfigApplier(configAdmin);
        String raw = context.getProperty(AGENT_ARGS);
        this.args = raw == null || raw.isEmpty() ? List.of() : Arrays.asList(raw.split("\0"));
        this.version = readVersion();
    }

    @Activate
    void start() {
        try {
            Candidate candidate = load();
            AgentSettings resolved = candidate.settings();
            running = candidate.config();
            unsupported = candidate.unsupported();
            dataDir = DataDir.open(resolved.dataDir(), resolved.ephemeralDataDir(devDataDir));
            Files.createDirectories(resolved.pluginDir());
            String nodeId = dataDir.nodeId();
            String password = resolved.consolePassword() != null ? resolved.consolePassword()
                    : dataDir.consolePassword();
            checkListenable(resolved);
            tls = loadTls(resolved);
            settings = resolved;
            applyLogging(resolved);
            int raftPort = resolved.server()
                    ? dataDir.raftPort(resolved.rpcAddr(), (int) running.integer("ports.raft", 0), resolved.serfPort())
                    : 0;
            if (resolved.server()) {
                checkListenable("Raft", resolved.rpcAddr(), raftPort);
            }
            raftPortInUse = raftPort;
            applier.apply(PidTranslator.translate(resolved, running, nodeId, raftPort, version, password,
                    tls.fingerprint()));
            String credentials = "user \"" + resolved.consoleUser() + "\", " + (resolved.devMode()
                    ? "password \"" + password + "\"" : resolved.consolePassword() != null
                    ? "password from configuration" : "password in " + dataDir.consolePasswordFile());
            System.out.print(Banner.render(resolved, nodeId, version, credentials));
            System.out.flush();
            warnUnsupported(unsupported);
            signals = Signals.install(Map.of(
                    "HUP", this::reloadOnSignal,
                    "INT", () -> stop("interrupt", settings.leaveOnInterrupt()),
                    "TERM", () -> stop("terminated", settings.leaveOnTerminate())));
            systemd.readyWhenListening(resolved.httpAddr(), resolved.httpPort(), READY_LIMIT_MS);
        } catch (AgentFlags.UsageException | ConfigException | AgentSettings.InvalidConfigException
                 | IOException | TlsException e) {
            System.err.println("==> " + (e instanceof TlsException ? "Error loading TLS configuration: " : "")
                    + e.getMessage());
            System.err.flush();
            exit(1);
        }
    }

    /**
     * Jetty and Ratis only log a port they cannot bind, so check first: an agent without its API or its Raft log
     * must not claim to have started. (A port taken between this check and their bind is still only logged.)
     */
    private static void checkListenable(AgentSettings s) throws IOException {
        checkListenable("HTTP", s.httpAddr(), s.httpPort());
        if (s.server()) {
            checkListenable("RPC", s.rpcAddr(), s.rpcPort());
            checkListenable("serf", s.serfAddr(), s.serfPort());
        }
    }

    private static void checkListenable(String what, String host, int port) throws IOException {
        try (java.net.ServerSocket probe = new java.net.ServerSocket()) {
            probe.bind(new java.net.InetSocketAddress(host, port));
        } catch (IOException e) {
            throw new IOException("Error starting agent: failed to listen on " + what + " address "
                    + new AgentSettings.HostPort(host, port) + ": " + e.getMessage());
        }
    }

    /** A configuration read and resolved, not yet applied. */
    private record Candidate(ConfigView config, AgentSettings settings, boolean dev, List<Path> files,
                             List<UnsupportedKey> unsupported) {}

    /** Flags, files and defaults, merged in Nomad's order and resolved. */
    private Candidate load() throws AgentFlags.UsageException, ConfigException,
            AgentSettings.InvalidConfigException, IOException {
        AgentFlags.Parsed flags = AgentFlags.parse(args);
        ConfigLoader.Loaded loaded = ConfigLoader.load(flags.dev(), flags.configPaths(), flags.layer());
        if (flags.dev() && loaded.config().string("data_dir", "").isBlank() && devDataDir == null) {
            devDataDir = AgentSettings.createDevDataDir();
        }
        return new Candidate(loaded.config(), resolve(loaded.config(), flags.dev(), loaded.files()), flags.dev(),
                loaded.files(), loaded.unsupported());
    }

    /** One WARN per key Caravan accepts but does not act on, so nothing is accepted silently. */
    private static void warnUnsupported(List<UnsupportedKey> keys) {
        for (UnsupportedKey k : keys) {
            LOG.atWarn().addKeyValue("key", k.key()).addKeyValue("position", k.position())
                    .addKeyValue("reason", k.reason())
                    .log("configuration key " + k.key() + " is not supported yet and has no effect");
        }
    }

    private AgentSettings resolve(ConfigView config, boolean dev, List<Path> files)
            throws AgentSettings.InvalidConfigException {
        return AgentSettings.resolve(config, dev, files, devDataDir, hostName());
    }

    /**
     * Reads and checks everything again, then applies every key that can change live and keeps the running value
     * of the keys the schema marks {@code restart}. A configuration that does not load changes nothing.
     */
    @Override
    public synchronized ReloadReport reload() {
        try {
            ReloadReport report = reloadNow();
            lastReload = new LastReload(java.time.Instant.now(), report, null);
            return report;
        } catch (RuntimeException e) {
            lastReload = new LastReload(java.time.Instant.now(), null, e.getMessage());
            throw e;
        }
    }

    @Override
    public java.util.Optional<LastReload> lastReload() {
        return java.util.Optional.ofNullable(lastReload);
    }

    private ReloadReport reloadNow() {
        long start = System.nanoTime();
        systemd.reloading();
        try {
            Candidate next = load();
            ConfigDiff diff = ConfigDiff.between(running, next.config(), Schema.nomadAgent());
            AgentSettings effective = resolve(diff.effective(), next.dev(), next.files());
            String password = effective.consolePassword() != null ? effective.consolePassword()
                    : dataDir.consolePassword();
            TlsMaterial nextTls = loadTls(effective);
            List<String> replaced = replacedTlsFiles(tls, nextTls, diff);
            applier.apply(PidTranslator.translate(effective, diff.effective(), dataDir.nodeId(), raftPortInUse, version,
                    password, nextTls.fingerprint()));
            applyLogging(effective);
            settings = effective;
            running = diff.effective();
            tls = nextTls;
            unsupported = next.unsupported();
            warnUnsupported(unsupported);
            ReloadReport report = new ReloadReport(union(diff.changed(), replaced), union(diff.live(), replaced),
                    diff.restartRequired(), (System.nanoTime() - start) / 1e6, unsupported);
            LOG.atInfo().addKeyValue("changed", report.changed()).addKeyValue("applied", report.applied())
                    .addKeyValue("restart_required", report.restartRequired())
                    .addKeyValue("elapsed_ms", String.format("%.1f", report.elapsedMs()))
                    .log("agent configuration reloaded");
            return report;
        } catch (AgentFlags.UsageException | ConfigException | AgentSettings.InvalidConfigException e) {
            throw CaravanException.badRequest(e.getMessage());
        } catch (TlsException e) {
            throw CaravanException.badRequest("TLS: " + e.getMessage() + "; the certificates in force stay");
        } catch (IOException e) {
            throw new CaravanException(ErrorCode.INTERNAL, "reload failed: " + e.getMessage());
        } finally {
            // Done either way: a failed reload keeps the configuration in force, and the agent serves on.
            systemd.ready("Agent running");
        }
    }

    /** The TLS files the settings name, read and checked (empty when TLS is off). */
    private static TlsMaterial loadTls(AgentSettings s) throws TlsException {
        return TlsMaterial.load(s.tls());
    }

    /**
     * {@code tls.cert_file} and the like whose path stayed but whose contents changed (a certificate rotated in
     * place, as Vault's agent does): a change the configuration diff cannot see.
     */
    static List<String> replacedTlsFiles(TlsMaterial before, TlsMaterial after, ConfigDiff diff) {
        List<String> out = new java.util.ArrayList<>();
        after.digests().forEach((file, digest) -> {
            String key = "tls." + file;
            if (!diff.changed().contains(key) && before.digests().containsKey(file)
                    && !digest.equals(before.digests().get(file))) {
                out.add(key);
            }
        });
        return out;
    }

    private static List<String> union(List<String> a, List<String> b) {
        if (b.isEmpty()) {
            return a;
        }
        List<String> out = new java.util.ArrayList<>(a);
        b.stream().filter(k -> !out.contains(k)).forEach(out::add);
        return List.copyOf(out);
    }

    @Override
    public Map<String, Object> configuration() {
        ConfigView current = running;
        return current == null ? Map.of() : java.util.Collections.unmodifiableMap(current.values());
    }

    @Override
    public List<UnsupportedKey> unsupported() {
        return unsupported;
    }

    private void reloadOnSignal() {
        LOG.info("caught SIGHUP: reloading agent configuration");
        try {
            reload();
        } catch (CaravanException e) {
            LOG.atError().addKeyValue("error", e.getMessage()).log("reload failed; nothing was changed");
        }
    }

    @Override
    public void shutdown(int exitCode, String reason) {
        if (!stopping.compareAndSet(false, true)) {
            return;
        }
        System.err.println("==> " + reason);
        System.err.flush();
        exit(exitCode);
    }

    private void stop(String signal, boolean leave) {
        if (!stopping.compareAndSet(false, true)) {
            System.err.println("==> Caught second signal " + signal + ". Exiting");
            Runtime.getRuntime().halt(1);
        }
        System.out.println("==> Caught signal: " + signal);
        systemd.stopping();   // before the graceful leave, which can take a while
        if (leave) {
            System.out.println("==> Gracefully shutting down agent...");
            for (GracefulLeave l : leaves) {
                try {
                    l.leave(LEAVE_TIMEOUT);
                } catch (Exception e) {
                    LOG.atError().addKeyValue("error", e.getMessage()).log("error leaving the cluster");
                }
            }
        }
        exit(0);
    }

    private void exit(int code) {
        systemd.stopping();
        IntConsumer shutdown = launcherShutdown;
        if (shutdown != null) {
            shutdown.accept(code);
            return;
        }
        // Not started by our launcher (an in-container test): stop the framework itself.
        Thread stopper = new Thread(() -> {
            try {
                context.getBundle(0).stop();
            } catch (BundleException e) {
                LOG.atError().addKeyValue("error", e.getMessage()).log("cannot stop the framework");
            }
        }, "caravan-stop");
        stopper.start();
    }

    /** Level and format live in the launcher's log backend; both change on reload. */
    private void applyLogging(AgentSettings s) {
        Consumer<String> level = launcherLogLevel;
        if (level != null) {
            level.accept(s.logLevel());
        }
        Consumer<String> format = launcherLogFormat;
        if (format != null) {
            format.accept(s.logJson() ? "json" : "text");
        }
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void bindLeave(GracefulLeave leave) {
        leaves.add(leave);
    }

    void unbindLeave(GracefulLeave leave) {
        leaves.remove(leave);
    }

    @Deactivate
    void deactivate() {
        if (signals != null) {
            signals.close();
        }
        if (dataDir != null) {
            dataDir.close();
        }
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "localhost";
        }
    }

    private static String readVersion() {
        try (InputStream in = AgentRuntime.class.getResourceAsStream("version.properties")) {
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version");
        } catch (IOException | NullPointerException e) {
            return "unknown";
        }
    }
}
