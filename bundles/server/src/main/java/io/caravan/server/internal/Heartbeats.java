package io.caravan.server.internal;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The leader's heartbeat timers, one per node: a node that does not heartbeat within its TTL plus the grace is
 * handed to {@code expired}. The TTL grows with the cluster so the servers see at most
 * {@code max_heartbeats_per_second} in total, and is staggered so nodes do not heartbeat in step (Nomad's rule).
 */
final class Heartbeats {
    private final ScheduledExecutorService timer;
    /** A reload may change them (Nomad's heartbeat keys are live); the next beat uses the new values. */
    private volatile Duration minTtl;
    private volatile double maxPerSecond;
    private volatile Duration grace;
    private final Consumer<String> expired;
    private final Map<String, ScheduledFuture<?>> timers = new ConcurrentHashMap<>();

    Heartbeats(ScheduledExecutorService timer, Duration minTtl, double maxPerSecond, Duration grace,
               Consumer<String> expired) {
        this.timer = timer;
        this.expired = expired;
        configure(minTtl, maxPerSecond, grace);
    }

    /** New limits for the beats to come; the timers running keep the window they were given. */
    void configure(Duration minTtl, double maxPerSecond, Duration grace) {
        this.minTtl = minTtl;
        this.maxPerSecond = maxPerSecond;
        this.grace = grace;
    }

    /** A heartbeat arrived: the TTL to tell the node; its timer restarts at TTL + grace. */
    Duration beat(String nodeId) {
        Duration ttl = ttl(timers.size() + 1);
        reset(nodeId, ttl.plus(grace));
        return ttl;
    }

    /** Restarts a node's timer with an explicit window (a new leader gives every node the failover TTL). */
    void reset(String nodeId, Duration window) {
        // The timer expires the node only if it is still the node's current one: a beat that raced it wins.
        java.util.concurrent.atomic.AtomicReference<ScheduledFuture<?>> self =
                new java.util.concurrent.atomic.AtomicReference<>();
        ScheduledFuture<?> next = timer.schedule(() -> {
            ScheduledFuture<?> me = self.get();
            if (me != null && timers.remove(nodeId, me)) {
                expired.accept(nodeId);
            }
        }, Math.max(1, window.toMillis()), TimeUnit.MILLISECONDS);
        self.set(next);
        ScheduledFuture<?> before = timers.put(nodeId, next);
        if (before != null) {
            before.cancel(false);
        }
    }

    /**
     * A new leader's timers: each node gets the failover TTL, but never less than the longest TTL the old leader may
     * have told it plus the grace. A node told the longest TTL just before the old leader died beats only then; with
     * Nomad's defaults and 10,000 nodes that is up to 400 s, and Nomad's failover TTL alone (5 m) would mark such a
     * node down although it is beating as told.
     *
     * @return the window every node was given
     */
    Duration leadershipGained(java.util.Collection<String> nodeIds, Duration failoverTtl) {
        Duration told = longestTtl(nodeIds.size()).plus(grace);
        Duration window = told.compareTo(failoverTtl) > 0 ? told : failoverTtl;
        nodeIds.forEach(id -> reset(id, window));
        return window;
    }

    void remove(String nodeId) {
        ScheduledFuture<?> before = timers.remove(nodeId);
        if (before != null) {
            before.cancel(false);
        }
    }

    int size() {
        return timers.size();
    }

    /** Scaled to the node count so all of them together stay under the rate, plus up to the same again at random. */
    Duration ttl(int nodes) {
        long base = baseMillis(nodes);
        return Duration.ofMillis(base + ThreadLocalRandom.current().nextLong(base + 1));
    }

    /** The longest TTL {@link #ttl} gives with this many nodes (with one more node, as a beat counts itself). */
    Duration longestTtl(int nodes) {
        return Duration.ofMillis(2 * baseMillis(nodes + 1));
    }

    private long baseMillis(int nodes) {
        long scaledMillis = (long) (nodes / maxPerSecond * 1000);
        return Math.max(minTtl.toMillis(), scaledMillis);
    }

    void clear() {
        timers.values().forEach(f -> f.cancel(false));
        timers.clear();
    }
}
