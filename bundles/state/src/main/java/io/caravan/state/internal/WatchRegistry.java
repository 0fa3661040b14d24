package io.caravan.state.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Parked blocking queries, indexed by what they watch, so a commit finds the affected ones without looking
 * at the others. A parked query is a {@link Waiter} (a callback), not a thread.
 *
 * <p>One monitor guards everything. That is what makes parking race-free: a waiter registers under the
 * lock and then re-reads the root; a commit publishes the root and then collects under the lock. Whichever
 * takes the lock second sees the other's write, so a commit can never slip between a query's run and its
 * park unnoticed. Woken waiters are removed from every registry before their callbacks run (outside the
 * lock), so each is woken at most once.
 */
final class WatchRegistry {

    /** A parked query: what it watches and how to wake it. Identity equality. */
    static final class Waiter {
        final Watches watches;
        final Runnable wake;

        Waiter(Watches watches, Runnable wake) {
            this.watches = watches;
            this.wake = wake;
        }
    }

    private final Set<Waiter> parked = new HashSet<>();
    private final Map<String, Set<Waiter>> byTable = new HashMap<>();
    private final Map<Watches.Key, Set<Waiter>> byKey = new HashMap<>();
    private final Map<Watches.Key, Set<Waiter>> byPrefix = new HashMap<>();
    /** Number of prefix watches per (table, index, ""): lets a commit skip prefix matching when there are none. */
    private final Map<Watches.Key, Integer> prefixCount = new HashMap<>();

    synchronized void add(Waiter w) {
        if (!parked.add(w)) {
            return;
        }
        w.watches.tables.forEach(t -> byTable.computeIfAbsent(t, x -> new HashSet<>()).add(w));
        w.watches.keys.forEach(k -> byKey.computeIfAbsent(k, x -> new HashSet<>()).add(w));
        for (Watches.Key p : w.watches.prefixes) {
            byPrefix.computeIfAbsent(p, x -> new HashSet<>()).add(w);
            prefixCount.merge(new Watches.Key(p.table(), p.index(), ""), 1, Integer::sum);
        }
    }

    /** Unparks {@code w}; false if it was not parked (already woken or removed). */
    synchronized boolean remove(Waiter w) {
        if (!parked.remove(w)) {
            return false;
        }
        w.watches.tables.forEach(t -> unlink(byTable, t, w));
        w.watches.keys.forEach(k -> unlink(byKey, k, w));
        for (Watches.Key p : w.watches.prefixes) {
            unlink(byPrefix, p, w);
            prefixCount.computeIfPresent(new Watches.Key(p.table(), p.index(), ""), (k, n) -> n == 1 ? null : n - 1);
        }
        return true;
    }

    /** Unparks and returns the waiters that {@code changes} concern. */
    synchronized List<Waiter> collect(Changes changes) {
        if (parked.isEmpty()) {
            return List.of(); // the common case on the apply path: nobody is long-polling
        }
        Set<Waiter> hit = new HashSet<>();
        for (String table : changes.tables()) {
            addAll(hit, byTable.get(table));
            for (Map.Entry<String, Set<String>> e : changes.keys(table).entrySet()) {
                String index = e.getKey();
                boolean prefixes = prefixCount.containsKey(new Watches.Key(table, index, ""));
                for (String key : e.getValue()) {
                    addAll(hit, byKey.get(new Watches.Key(table, index, key)));
                    if (prefixes) {
                        // Look up every prefix of the key: cost bounded by its length, not by the number of waiters.
                        for (int i = 0; i <= key.length(); i++) {
                            addAll(hit, byPrefix.get(new Watches.Key(table, index, key.substring(0, i))));
                        }
                    }
                }
            }
        }
        List<Waiter> woken = new ArrayList<>(hit);
        woken.forEach(this::remove);
        return woken;
    }

    /** Unparks and returns every waiter (a restore replaced everything). */
    synchronized List<Waiter> collectAll() {
        List<Waiter> woken = new ArrayList<>(parked);
        woken.forEach(this::remove);
        return woken;
    }

    synchronized int size() {
        return parked.size();
    }

    private static void addAll(Set<Waiter> hit, Set<Waiter> ws) {
        if (ws != null) {
            hit.addAll(ws);
        }
    }

    private static <K> void unlink(Map<K, Set<Waiter>> map, K key, Waiter w) {
        Set<Waiter> ws = map.get(key);
        if (ws != null && ws.remove(w) && ws.isEmpty()) {
            map.remove(key);
        }
    }
}
