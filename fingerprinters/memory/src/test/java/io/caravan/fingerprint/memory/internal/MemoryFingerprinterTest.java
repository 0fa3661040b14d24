package io.caravan.fingerprint.memory.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.caravan.plugin.api.fingerprint.FingerprintResult;
import io.caravan.plugin.api.fingerprint.HostFacts;

class MemoryFingerprinterTest {

    private static final HostFacts NO_FACTS = new HostFacts() {
        @Override public Map<String, String> attributes() { return Map.of(); }
        @Override public Map<String, String> options() { return Map.of(); }
        @Override public Path dataDir() { return Path.of("/tmp"); }
    };

    @Test
    void readsMemTotalFromFixture() throws Exception {
        Path fixture = Path.of(getClass().getResource("/fixture").toURI());

        FingerprintResult result = new MemoryFingerprinter(fixture).fingerprint(NO_FACTS);

        // MemTotal: 24683656 kB
        assertEquals(Map.of("memory.totalbytes", "25276063744"), result.attributes());
        assertEquals(24105, result.resources().memoryMb());
        assertEquals(0, result.resources().cpuTotalMhz());
    }

    @Test
    void missingMemTotalMeansNothing() {
        assertEquals(0, MemoryFingerprinter.memTotalBytes(List.of("MemFree: 10 kB")));
    }

    @Test
    void realMachine() throws Exception {
        assumeTrue(System.getProperty("os.name").equals("Linux"));

        FingerprintResult result = new MemoryFingerprinter().fingerprint(NO_FACTS);

        assertTrue(Long.parseLong(result.attributes().get("memory.totalbytes")) > 0);
        assertTrue(result.resources().memoryMb() > 0);
    }
}
