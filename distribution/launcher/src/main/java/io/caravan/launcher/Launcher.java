package io.caravan.launcher;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import java.util.stream.Stream;

import io.caravan.launcher.log.AgentLog;
import io.caravan.launcher.log.LogLevel;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.Constants;
import org.osgi.framework.launch.Framework;
import org.osgi.framework.launch.FrameworkFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Boots the agent: embeds Felix, installs every bundle of the assembled distribution, hands the agent's
 * command-line arguments to the agent bundle, and owns the process exit code. It knows nothing about Caravan's
 * configuration; the agent bundle parses the arguments and configures everything else through Config Admin.
 *
 * <p>Two services cross the boundary, typed with JDK interfaces so no extra package is shared:
 * {@code IntConsumer} ({@code caravan.launcher=shutdown}) stops the agent with an exit code, and
 * {@code Consumer<String>} ({@code caravan.launcher=log-level}, {@code log-format}: "json" or "text") changes how
 * it logs.
 */
public final class Launcher {
    /** Framework property carrying the agent arguments, NUL-separated. */
    public static final String AGENT_ARGS = "caravan.agent.args";
    public static final String HOME = "caravan.home";
    public static final String SERVICE_KEY = "caravan.launcher";

    private static final Logger LOG = LoggerFactory.getLogger(Launcher.class);

    private final Path home;
    private final List<String> agentArgs;
    private final AtomicInteger exitCode = new AtomicInteger(0);

    public Launcher(Path home, List<String> agentArgs) {
        this.home = home.toAbsolutePath().normalize();
        this.agentArgs = List.copyOf(agentArgs);
    }

    public static void main(String[] args) {
        System.exit(new Launcher(locateHome(), List.of(args)).run());
    }

    /** The distribution home: {@code -Dcaravan.home}, else the parent of the folder holding this jar. */
    public static Path locateHome() {
        String configured = System.getProperty(HOME);
        if (configured != null && !configured.isBlank()) {
            return Paths.get(configured);
        }
        try {
            Path jar = Paths.get(Launcher.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return jar.getParent().getParent();
        } catch (Exception e) {
            throw new IllegalStateException("cannot locate the Caravan home; set -Dcaravan.home", e);
        }
    }

    /** Runs the agent until it stops; returns the process exit code. */
    public int run() {
        Path cache;
        try {
            cache = Files.createTempDirectory("caravan-osgi-");
        } catch (IOException e) {
            System.err.println("Error starting agent: cannot create a temporary directory: " + e.getMessage());
            return 1;
        }
        Framework framework = ServiceLoader.load(FrameworkFactory.class).iterator().next()
                .newFramework(FrameworkProperties.of(home, cache, agentArgs));
        Thread stopOnExit = new Thread(() -> stopQuietly(framework), "caravan-shutdown");
        try {
            framework.init();
            registerLauncherServices(framework);
            installBundles(framework.getBundleContext());
            Runtime.getRuntime().addShutdownHook(stopOnExit);
            framework.start();
            startBundles(framework.getBundleContext());
            framework.waitForStop(0);
        } catch (BundleException | IOException | UncheckedIOException e) {
            System.err.println("Error starting agent: " + e.getMessage());
            LOG.debug("start-up failed", e);
            stopQuietly(framework);
            exitCode.compareAndSet(0, 1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            deleteTree(cache);
        }
        try {
            Runtime.getRuntime().removeShutdownHook(stopOnExit);
        } catch (IllegalStateException shuttingDown) {
            // The JVM is already exiting (a signal no bundle handled); the hook does the stop.
        }
        return exitCode.get();
    }

    private void registerLauncherServices(Framework framework) {
        BundleContext system = framework.getBundleContext();
        IntConsumer shutdown = code -> {
            exitCode.set(code);
            // Stop from a fresh thread: the caller is usually a component that the stop will deactivate.
            Thread stopper = new Thread(() -> stopQuietly(framework), "caravan-stop");
            stopper.start();
        };
        system.registerService(IntConsumer.class, shutdown, props("shutdown"));
        Consumer<String> logLevel = level -> LogLevel.parse(level).ifPresent(AgentLog::setLevel);
        system.registerService(Consumer.class, logLevel, props("log-level"));
        Consumer<String> logFormat = format -> AgentLog.setJson("json".equals(format));
        system.registerService(Consumer.class, logFormat, props("log-format"));
        // The monitor's tap: ("<level>" or "<level> json", sink) -> handle that ends it. JDK types only, as above.
        BiFunction<String, Consumer<String>, AutoCloseable> logTap = (spec, sink) -> {
            String[] words = spec.trim().split("\\s+");
            LogLevel level = LogLevel.parse(words[0]).orElseThrow(() -> new IllegalArgumentException(
                    "Unknown log level: " + words[0]));
            return AgentLog.tap(level, words.length > 1 && words[1].equals("json"), sink);
        };
        system.registerService(BiFunction.class, logTap, props("log-tap"));
    }

    private static Hashtable<String, Object> props(String role) {
        Hashtable<String, Object> props = new Hashtable<>();
        props.put(SERVICE_KEY, role);
        return props;
    }

    private void installBundles(BundleContext context) throws IOException, BundleException {
        Path dir = home.resolve("bundles");
        List<Path> jars;
        try (Stream<Path> files = Files.list(dir)) {
            jars = files.filter(p -> p.toString().endsWith(".jar")).sorted(Comparator.naturalOrder()).toList();
        }
        if (jars.isEmpty()) {
            throw new IOException("no bundles in " + dir);
        }
        for (Path jar : jars) {
            // By reference: Felix reads the jar where it is instead of copying it (36 MB) into a fresh cache at every
            // start; only jars embedded in a bundle are still extracted.
            context.installBundle("reference:" + jar.toUri());
        }
    }

    private static void startBundles(BundleContext context) {
        List<Bundle> toStart = new ArrayList<>();
        for (Bundle bundle : context.getBundles()) {
            if (bundle.getBundleId() != 0 && bundle.getHeaders().get(Constants.FRAGMENT_HOST) == null) {
                toStart.add(bundle);
            }
        }
        for (Bundle bundle : toStart) {
            try {
                bundle.start();
            } catch (BundleException e) {
                LOG.atError().addKeyValue("bundle", bundle.getSymbolicName())
                        .addKeyValue("error", e.getMessage()).log("failed to start bundle");
            }
        }
    }

    private static void stopQuietly(Framework framework) {
        try {
            framework.stop();
            framework.waitForStop(30_000);
        } catch (BundleException e) {
            LOG.atWarn().addKeyValue("error", e.getMessage()).log("error stopping the OSGi framework");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void deleteTree(Path root) {
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // A leftover temp dir is harmless.
        }
    }

    /** Visible for the in-container tests, which must boot the same framework the launcher boots. */
    public static Map<String, String> frameworkProperties(Path home, Path cache, List<String> agentArgs) {
        return FrameworkProperties.of(home, cache, agentArgs);
    }
}
