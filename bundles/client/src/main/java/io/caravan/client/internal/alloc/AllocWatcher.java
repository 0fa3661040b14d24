package io.caravan.client.internal.alloc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.caravan.api.endpoint.NodeEndpoint.ClientAllocs;
import io.caravan.api.endpoint.NodeEndpoint;
import io.caravan.api.model.Allocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's long poll on its allocations (Nomad's {@code watchAllocations}): a blocking
 * {@code Node.GetClientAllocs} (no thread waits on it), a diff by {@code AllocModifyIndex}, a fetch of the changed
 * ones, and the result handed to the {@link Sink}: new or updated allocations, and IDs the servers no longer list.
 * After the first full list it asks only for what changed since the last answer it applied; when the count of what it
 * knows then differs from the node's, something was removed, and it asks for the full list again.
 * Answers are handled on the client's scheduler thread, never on the server's. Errors back off exponentially.
 */
public final class AllocWatcher {
    public static final Duration MAX_WAIT = Duration.ofMinutes(5);
    static final Duration MIN_BACKOFF = Duration.ofMillis(500);
    static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

    private static final Logger LOG = LoggerFactory.getLogger(AllocWatcher.class);

    /** Where the watcher's findings go; called on the scheduler thread, one sync at a time. */
    public interface Sink {
        void upsert(List<Allocation> changed);

        void removed(Set<String> allocIds);

        /** After each successful sync; {@code first} once. */
        void synced(boolean first);
    }

    private final ScheduledExecutorService scheduler;
    private final Supplier<AllocUpdateBatcher.Target> target;
    private final Sink sink;
    private final Duration maxWait;

    private final Map<String, Long> known = new HashMap<>();
    private long index;
    /** The index of the last answer applied: the next poll asks only for later changes (0: the full list). */
    private long knownIndex;
    private boolean running;
    private boolean synced;
    private long generation;
    private Duration backoff = MIN_BACKOFF;

    public AllocWatcher(ScheduledExecutorService scheduler, Supplier<AllocUpdateBatcher.Target> target, Sink sink,
                        Duration maxWait) {
        this.scheduler = scheduler;
        this.target = target;
        this.sink = sink;
        this.maxWait = maxWait;
    }

    /** Starts (or restarts, e.g. with a new endpoint) the poll from index 0. */
    public synchronized void start() {
        running = true;
        generation++;
        index = 0;
        knownIndex = 0;
        long gen = generation;
        scheduler.execute(() -> poll(gen));
    }

    public synchronized void stop() {
        running = false;
        generation++;
    }

    private void poll(long gen) {
        AllocUpdateBatcher.Target t;
        long minIndex;
        long since;
        synchronized (this) {
            if (!running || gen != generation) {
                return;
            }
            t = target.get();
            minIndex = index;
            since = knownIndex;
        }
        if (t == null || t.endpoint() == null) {
            retry(gen, "no server endpoint");
            return;
        }
        NodeEndpoint ep = t.endpoint();
        try {
            ep.clientAllocs(t.nodeId(), t.secretId(), minIndex, since, maxWait).whenCompleteAsync((answer, error) -> {
                if (error != null) {
                    retry(gen, message(error));
                } else {
                    answered(gen, ep, t, answer, since == 0);
                }
            }, scheduler);
        } catch (RuntimeException e) {
            retry(gen, e.toString());
        }
    }

    private void answered(long gen, NodeEndpoint ep, AllocUpdateBatcher.Target t, ClientAllocs answer, boolean full) {
        List<String> changed = new ArrayList<>();
        Set<String> removed;
        synchronized (this) {
            if (!running || gen != generation) {
                return;
            }
            int unknown = 0;
            for (Map.Entry<String, Long> e : answer.allocs().entrySet()) {
                Long before = known.get(e.getKey());
                unknown += before == null ? 1 : 0;
                if (before == null || e.getValue() > before) {
                    changed.add(e.getKey());
                }
            }
            if (!full && known.size() + unknown != answer.total()) {
                // The node has fewer than this client knows of: some were removed. Ask for the whole list, now.
                index = 0;
                knownIndex = 0;
                scheduler.execute(() -> poll(gen));
                return;
            }
            removed = new HashSet<>();
            if (full) {
                removed.addAll(known.keySet());
                removed.removeAll(answer.allocs().keySet());
            }
            // A first answer also tells which restored allocations the servers forgot.
            index = Math.max(answer.index(), 1);
        }
        if (changed.isEmpty()) {
            applied(gen, List.of(), removed, answer);
            return;
        }
        try {
            ep.allocs(t.nodeId(), t.secretId(), changed).whenCompleteAsync((allocs, error) -> {
                if (error != null) {
                    retry(gen, message(error));
                } else {
                    applied(gen, allocs, removed, answer);
                }
            }, scheduler);
        } catch (RuntimeException e) {
            retry(gen, e.toString());
        }
    }

    private void applied(long gen, List<Allocation> allocs, Set<String> removed, ClientAllocs answer) {
        boolean first;
        synchronized (this) {
            if (!running || gen != generation) {
                return;
            }
            for (Allocation a : allocs) {
                known.put(a.id(), answer.allocs().getOrDefault(a.id(), a.allocModifyIndex()));
            }
            removed.forEach(known::remove);
            knownIndex = answer.index();
            first = !synced;
            synced = true;
            backoff = MIN_BACKOFF;
        }
        try {
            if (!removed.isEmpty()) {
                sink.removed(removed);
            }
            if (!allocs.isEmpty()) {
                sink.upsert(allocs);
            }
            sink.synced(first);
        } catch (RuntimeException e) {
            LOG.atError().setCause(e).log("applying allocation changes failed");
        }
        scheduler.execute(() -> poll(gen));
    }

    /** IDs the client already runs (restored from its state) before the first sync. */
    public synchronized void knownAtStart(Set<String> allocIds) {
        allocIds.forEach(id -> known.putIfAbsent(id, 0L));
    }

    private void retry(long gen, String why) {
        Duration delay;
        synchronized (this) {
            if (!running || gen != generation) {
                return;
            }
            delay = backoff;
            backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
        }
        LOG.atWarn().addKeyValue("error", why).addKeyValue("retry", delay).log("error querying node allocations");
        scheduler.schedule(() -> poll(gen), delay.toMillis(), TimeUnit.MILLISECONDS);
    }

    private static String message(Throwable error) {
        Throwable t = error;
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return String.valueOf(t.getMessage());
    }
}
