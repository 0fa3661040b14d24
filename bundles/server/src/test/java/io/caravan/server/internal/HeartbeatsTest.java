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
}
