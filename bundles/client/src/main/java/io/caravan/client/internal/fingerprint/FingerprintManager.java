package io.caravan.client.internal.fingerprint;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.caravan.plugin.api.fingerprint.FingerprintResult.HostResources;
import io.caravan.plugin.api.fingerprint.FingerprintResult;
import io.caravan.plugin.api.fingerprint.Fingerprinter;
import io.caravan.plugin.api.fingerprint.HostFacts;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the bound fingerprinters (Nomad's host phase, then env) and keeps what each one contributed, so that when a
 * fingerprinter leaves exactly its attributes leave the node. Every change — a round after binds, a periodic re-run,
 * an unbind — is merged and handed to the listener once, and only if the merged facts changed.
 *
 * <p>All work runs on the given single-threaded executor (fingerprinters may block, e.g. on cloud metadata), so
 * binds, unbinds and runs are serial and need no locks of their own.
 */
public final class FingerprintManager {
    public static final String PHASE_HOST = "host";
    public static final String PHASE_ENV = "env";
    /** Binds that arrive together (bundle start) are fingerprinted in one round. */
    static final Duration ROUND_DEBOUNCE = Duration.ofMillis(100);

    private static final Logger LOG = LoggerFactory.getLogger(FingerprintManager.class);

    private final ScheduledExecutorService executor;
    private volatile Map<String, String> options;   // replaced by a reload
    private final Path dataDir;
    private final Consumer<NodeFacts> listener;

    // Touched only on the executor's thread.
    private final Map<Fingerprinter, Entry> entries = new IdentityHashMap<>();
    private NodeFacts published = NodeFacts.EMPTY;
    private ScheduledFuture<?> pendingRound;
    private boolean started;

    public FingerprintManager(ScheduledExecutorService executor, Map<String, String> options, Path dataDir,
                              Consumer<NodeFacts> listener) {
        this.executor = executor;
        this.options = Map.copyOf(options);
        this.dataDir = dataDir;
        this.listener = listener;
    }

    private static final class Entry {
        final String name;
        final String phase;
        final Fingerprinter fingerprinter;
        FingerprintResult result;
        ScheduledFuture<?> periodic;

        Entry(String name, String phase, Fingerprinter fingerprinter) {
            this.name = name;
            this.phase = phase;
            this.fingerprinter = fingerprinter;
        }

        int phaseOrder() {
            return PHASE_ENV.equals(phase) ? 1 : 0;
        }
    }

    private static final Comparator<Entry> ORDER =
            Comparator.comparingInt(Entry::phaseOrder).thenComparing(e -> e.name);

    /** Runs the first round; binds before this only register. */
    public void start() {
        executor.execute(() -> {
            started = true;
            scheduleRound();
        });
    }

    public void bind(String name, String phase, Fingerprinter fingerprinter) {
        executor.execute(() -> {
            entries.put(fingerprinter, new Entry(name, phase == null ? PHASE_HOST : phase, fingerprinter));
            LOG.atDebug().addKeyValue("fingerprinter", name).log("fingerprinter bound");
            if (started) {
                scheduleRound();
            }
        });
    }

    public void unbind(Fingerprinter fingerprinter) {
        executor.execute(() -> {
            Entry gone = entries.remove(fingerprinter);
            if (gone == null) {
                return;
            }
            if (gone.periodic != null) {
                gone.periodic.cancel(false);
            }
            LOG.atDebug().addKeyValue("fingerprinter", gone.name).log("fingerprinter unbound; its attributes removed");
            publishIfChanged();
        });
    }

    /** New options (a reload): when they differ, every fingerprinter runs again with them. */
    public void options(Map<String, String> next) {
        Map<String, String> copy = Map.copyOf(next);
        executor.execute(() -> {
            if (!copy.equals(options)) {
                options = copy;
                if (started) {
                    scheduleRound();
                }
            }
        });
    }

    /** The merged facts last handed to the listener. */
    public NodeFacts facts() {
        return published;
    }

    private void scheduleRound() {
        if (pendingRound == null || pendingRound.isDone()) {
            pendingRound = executor.schedule(this::runRound, ROUND_DEBOUNCE.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** Every fingerprinter, host phase first; each sees what the ones before it found. */
    private void runRound() {
        List<Entry> ordered = new ArrayList<>(entries.values());
        ordered.sort(ORDER);
        for (Entry entry : ordered) {
            run(entry);
            entry.fingerprinter.period().filter(p -> entry.periodic == null && !p.isZero() && !p.isNegative())
                    .ifPresent(p -> entry.periodic = executor.scheduleWithFixedDelay(() -> rerun(entry),
                            p.toMillis(), p.toMillis(), TimeUnit.MILLISECONDS));
        }
        publishIfChanged();
    }

    private void rerun(Entry entry) {
        if (entries.get(entry.fingerprinter) == entry) {
            run(entry);
            publishIfChanged();
        }
    }

    private void run(Entry entry) {
        try {
            FingerprintResult result = entry.fingerprinter.fingerprint(hostFacts());
            entry.result = result == null ? FingerprintResult.attributes(Map.of()) : result;
        } catch (Exception | LinkageError e) {
            // Keep what it found last time: a transient failure should not make attributes flap.
            LOG.atWarn().addKeyValue("fingerprinter", entry.name).addKeyValue("error", e.toString())
                    .log("fingerprinting failed");
        }
    }

    private HostFacts hostFacts() {
        Map<String, String> soFar = merge().attributes();
        return new HostFacts() {
            @Override
            public Map<String, String> attributes() {
                return soFar;
            }

            @Override
            public Map<String, String> options() {
                return options;
            }

            @Override
            public Path dataDir() {
                return dataDir;
            }
        };
    }

    private NodeFacts merge() {
        List<Entry> ordered = new ArrayList<>(entries.values());
        ordered.sort(ORDER);
        Map<String, String> attributes = new HashMap<>();
        Map<String, String> links = new HashMap<>();
        long cpu = 0;
        int cores = 0;
        long memory = 0;
        long disk = 0;
        for (Entry entry : ordered) {
            if (entry.result == null) {
                continue;
            }
            attributes.putAll(entry.result.attributes());
            links.putAll(entry.result.links());
            HostResources r = Optional.ofNullable(entry.result.resources()).orElse(HostResources.NONE);
            cpu = r.cpuTotalMhz() > 0 ? r.cpuTotalMhz() : cpu;
            cores = r.cpuCores() > 0 ? r.cpuCores() : cores;
            memory = r.memoryMb() > 0 ? r.memoryMb() : memory;
            disk = r.diskMb() > 0 ? r.diskMb() : disk;
        }
        return new NodeFacts(attributes, links, new HostResources(cpu, cores, memory, disk));
    }

    private void publishIfChanged() {
        NodeFacts merged = merge();
        if (merged.equals(published)) {
            return;
        }
        published = merged;
        try {
            listener.accept(merged);
        } catch (RuntimeException e) {
            LOG.atError().setCause(e).log("node facts listener failed");
        }
    }

    /** Stops periodic runs; the executor belongs to the caller. */
    public void stop() {
        executor.execute(() -> entries.values().forEach(e -> {
            if (e.periodic != null) {
                e.periodic.cancel(false);
            }
        }));
    }
}
