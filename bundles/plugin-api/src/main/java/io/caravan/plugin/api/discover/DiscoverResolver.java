package io.caravan.plugin.api.discover;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Turns join entries into addresses, as {@code retry_join} reads them: a plain {@code host[:port]} stays as it is; a
 * go-discover string ({@code provider=dns name=…}) is resolved now by the {@link Discoverer} registered for its
 * provider, with {@code port} defaulting to the caller's port (serf 4648 for servers, RPC 4647 for clients). Thread
 * safe: providers come and go as their bundles do.
 */
public final class DiscoverResolver {
    private final Map<Discoverer, String> providers = new ConcurrentHashMap<>();

    /** A provider service arrived; {@code properties} carry its {@link DiscoverProvider#PROPERTY}. */
    public void add(Discoverer discoverer, Map<String, ?> properties) {
        Object provider = properties.get(DiscoverProvider.PROPERTY);
        if (provider != null) {
            providers.put(discoverer, provider.toString());
            synchronized (this) {
                notifyAll();
            }
        }
    }

    /**
     * Waits until every provider that {@code entries} name is registered, at most {@code timeout}; for the first
     * join attempt, which runs as the agent starts, while the providers' bundles may still be starting: without the
     * wait it found none and slept a whole {@code retry_interval}.
     *
     * @return the providers still missing (empty: all are there, or the entries name none)
     */
    public Set<String> awaitProviders(List<String> entries, Duration timeout) throws InterruptedException {
        Set<String> wanted = new TreeSet<>();
        for (String entry : entries) {
            try {
                DiscoverString.parse(entry).ifPresent(ds -> wanted.add(ds.provider()));
            } catch (IllegalArgumentException malformed) {
                // resolve() reports it
            }
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (this) {
            while (true) {
                Set<String> missing = new TreeSet<>(wanted);
                missing.removeAll(providers.values());
                long left = deadline - System.nanoTime();
                if (missing.isEmpty() || left <= 0) {
                    return missing;
                }
                wait(Math.max(1, left / 1_000_000));
            }
        }
    }

    public void remove(Discoverer discoverer) {
        providers.remove(discoverer);
    }

    /**
     * The addresses of one attempt, in entry order.
     *
     * @param problems told why an entry gave nothing (no such provider, a failed lookup, a malformed string)
     */
    public List<String> resolve(List<String> entries, int defaultPort, Consumer<String> problems) {
        List<String> out = new ArrayList<>();
        for (String entry : entries) {
            Optional<DiscoverString> ds;
            try {
                ds = DiscoverString.parse(entry);
            } catch (IllegalArgumentException e) {
                problems.accept(e.getMessage());
                continue;
            }
            if (ds.isEmpty()) {
                out.add(entry);
                continue;
            }
            String provider = ds.get().provider();
            Discoverer d = providers.entrySet().stream().filter(e -> e.getValue().equals(provider))
                    .map(Map.Entry::getKey).findFirst().orElse(null);
            if (d == null) {
                problems.accept("no discovery provider " + provider + " is installed (entry: " + entry + ")");
                continue;
            }
            Map<String, String> args = new LinkedHashMap<>(ds.get().args());
            args.putIfAbsent("port", Integer.toString(defaultPort));
            try {
                out.addAll(d.addresses(args));
            } catch (Exception e) {
                problems.accept("discovery with provider " + provider + " failed: " + e);
            }
        }
        return out;
    }
}
