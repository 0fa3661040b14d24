package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class HeartbeatsTest {
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final List<String> expired = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        timer.shutdownNow();
    }

    @Test
    void ttlScalesWithTheClusterAndIsStaggered() {
        Heartbeats h = new Heartbeats(timer, Duration.ofSeconds(10), 50, Duration.ofSeconds(10), expired::add);
        for (int i = 0; i < 100; i++) {
            Duration small = h.ttl(10);
            assertTrue(small.compareTo(Duration.ofSeconds(10)) >= 0 && small.compareTo(Duration.ofSeconds(20)) <= 0,
                    small.toString());
            Duration big = h.ttl(5000); // 5,000 nodes at 50/s: at least 100 s
            assertTrue(big.compareTo(Duration.ofSeconds(100)) >= 0 && big.compareTo(Duration.ofSeconds(200)) <= 0,
                    big.toString());
        }
    }

    @Test
    void aNodeThatStopsBeatingExpiresOnceAndABeatingOneDoesNot() throws Exception {
        Heartbeats h = new Heartbeats(timer, Duration.ofMillis(50), 50, Duration.ofMillis(50), expired::add);
        // Windows far longer than the beat interval, so a slow CI machine cannot make the busy node miss one.
        h.reset("quiet", Duration.ofMillis(300));
        long until = System.nanoTime() + Duration.ofMillis(1500).toNanos();
        while (System.nanoTime() < until) {
            h.reset("busy", Duration.ofMillis(1000));
            Thread.sleep(20);
        }
        assertEquals(List.of("quiet"), expired);
        h.remove("busy");
        Thread.sleep(1200);
        assertEquals(List.of("quiet"), expired, "a removed node never expires");
        assertEquals(0, h.size());
    }

    @Test
    void aReloadChangesTheTtlOfTheNextBeats() {
        Heartbeats h = new Heartbeats(timer, Duration.ofSeconds(10), 50, Duration.ofSeconds(10), expired::add);
        h.configure(Duration.ofMinutes(5), 50, Duration.ofSeconds(10));
        for (int i = 0; i < 20; i++) {
            Duration ttl = h.beat("n");
            assertTrue(ttl.compareTo(Duration.ofMinutes(5)) >= 0 && ttl.compareTo(Duration.ofMinutes(10)) <= 0,
                    ttl.toString());
        }
        h.clear();
    }

    /** 10,000 nodes at Nomad's defaults are told 200–400 s: a new leader's 5 m alone would mark some of them down. */
    @Test
    void aNewLeaderWaitsAtLeastTheLongestTtlANodeMayHaveBeenToldPlusTheGrace() {
        Heartbeats h = new Heartbeats(timer, Duration.ofSeconds(10), 50, Duration.ofSeconds(10), expired::add);
        List<String> many = java.util.stream.IntStream.range(0, 10_000).mapToObj(i -> "n" + i).toList();
        for (int i = 0; i < 200; i++) {
            assertTrue(h.ttl(10_000).compareTo(h.longestTtl(10_000)) <= 0);
        }

        Duration window = h.leadershipGained(many, Duration.ofMinutes(5));
        assertTrue(window.compareTo(Duration.ofSeconds(410)) >= 0, window.toString());
        assertEquals(10_000, h.size());
        h.clear();

        assertEquals(Duration.ofMinutes(5), h.leadershipGained(List.of("a", "b"), Duration.ofMinutes(5)),
                "a small cluster keeps the failover TTL");
        h.clear();
    }

    @Test
    void aNodeBeatingAtTheLongestTtlAfterAFailoverIsNotMarkedDown() throws Exception {
        // Base TTL 500 ms (the minimum), so a node may have been told up to 1 s; failover TTL 100 ms; window 1.5 s.
        Heartbeats h = new Heartbeats(timer, Duration.ofMillis(500), 1_000_000, Duration.ofMillis(500), expired::add);
        h.leadershipGained(List.of("told-the-longest", "gone"), Duration.ofMillis(100));
        Thread.sleep(1000);
        h.beat("told-the-longest"); // on time, as told before the failover
        assertEquals(List.of(), expired, "nobody expires within the longest TTL plus the grace");
        h.remove("told-the-longest");
        Thread.sleep(1600);
        assertEquals(List.of("gone"), expired, "a node that stopped beating still expires");
    }
}
