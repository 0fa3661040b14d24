package io.caravan.client.internal.fingerprint;

import static io.caravan.client.internal.testing.Fixtures.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

import io.caravan.plugin.api.fingerprint.FingerprintResult.HostResources;
import io.caravan.plugin.api.fingerprint.FingerprintResult;
import io.caravan.plugin.api.fingerprint.Fingerprinter;
import io.caravan.plugin.api.fingerprint.HostFacts;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class FingerprintManagerTest {
    private static final Duration WAIT = Duration.ofSeconds(5);

    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor();
    private final List<NodeFacts> published = new CopyOnWriteArrayList<>();
    private final FingerprintManager manager = new FingerprintManager(thread, Map.of("opt", "1"), Path.of("/tmp"),
            published::add);

    @AfterEach
    void tearDown() {
        thread.shutdownNow();
    }

    @Test
    void unbindingOneRemovesExactlyItsAttributesInOneUpdate() throws Exception {
        Fingerprinter cpu = soFar -> new FingerprintResult(Map.of("cpu.numcores", "4", "shared", "cpu"), Map.of(),
                new HostResources(8000, 4, 0, 0));
        // env phase: sees what the host phase found
        Fingerprinter env = soFar -> FingerprintResult.attributes(Map.of("platform.test", "yes",
                "saw.cores", String.valueOf(soFar.attributes().get("cpu.numcores")), "shared", "env"));
        manager.bind("env_test", FingerprintManager.PHASE_ENV, env);
        manager.bind("cpu", FingerprintManager.PHASE_HOST, cpu);
        manager.start();

        await(WAIT, "first round", () -> !published.isEmpty());
        Thread.sleep(300); // nothing else is pending: the two binds were one round
        assertEquals(1, published.size());
        NodeFacts first = published.get(0);
        assertEquals("4", first.attributes().get("cpu.numcores"));
        assertEquals("4", first.attributes().get("saw.cores"));
        assertEquals("env", first.attributes().get("shared"), "env phase runs after host and wins");
        assertEquals(8000, first.resources().cpuTotalMhz());

        manager.unbind(env);
        await(WAIT, "update after unbind", () -> published.size() == 2);
        Thread.sleep(300);
        assertEquals(2, published.size(), "exactly one update for the unbind");
        NodeFacts after = published.get(1);
        assertEquals(Map.of("cpu.numcores", "4", "shared", "cpu"), after.attributes());
        assertEquals(8000, after.resources().cpuTotalMhz());

        manager.unbind(cpu);
        await(WAIT, "cpu gone", () -> published.size() == 3);
        assertEquals(Map.of(), published.get(2).attributes());
        assertEquals(0, published.get(2).resources().cpuTotalMhz());
    }

    @Test
    void periodicFingerprintersRunAgainAndOnlyChangesArePublished() {
        AtomicInteger runs = new AtomicInteger();
        Fingerprinter periodic = new Fingerprinter() {
            @Override
            public FingerprintResult fingerprint(HostFacts soFar) {
                int n = runs.incrementAndGet();
                assertEquals("1", soFar.options().get("opt"));
                return FingerprintResult.attributes(Map.of("run.bucket", n < 3 ? "early" : "late"));
            }

            @Override
            public Optional<Duration> period() {
                return Optional.of(Duration.ofMillis(50));
            }
        };
        manager.bind("periodic", null, periodic);
        manager.start();
        await(WAIT, "late bucket", () -> published.stream()
                .anyMatch(f -> "late".equals(f.attributes().get("run.bucket"))));
        assertEquals(2, published.size(), "early, then late; unchanged runs publish nothing");
    }

    @Test
    void aFailingFingerprinterKeepsItsLastAttributes() {
        AtomicInteger runs = new AtomicInteger();
        Fingerprinter flaky = new Fingerprinter() {
            @Override
            public FingerprintResult fingerprint(HostFacts soFar) throws Exception {
                if (runs.incrementAndGet() > 1) {
                    throw new Exception("metadata service timed out");
                }
                return FingerprintResult.attributes(Map.of("cloud", "x"));
            }

            @Override
            public Optional<Duration> period() {
                return Optional.of(Duration.ofMillis(30));
            }
        };
        manager.bind("flaky", "env", flaky);
        manager.start();
        await(WAIT, "several runs", () -> runs.get() > 3);
        assertEquals("x", manager.facts().attributes().get("cloud"));
        assertNull(manager.facts().attributes().get("other"));
        assertEquals(1, published.size());
    }
}
