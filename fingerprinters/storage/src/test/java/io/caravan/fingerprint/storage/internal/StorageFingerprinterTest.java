package io.caravan.fingerprint.storage.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.caravan.plugin.api.fingerprint.FingerprintResult;
import io.caravan.plugin.api.fingerprint.HostFacts;

class StorageFingerprinterTest {
    private static final long TEN_GIB = 10L * 1024 * 1024 * 1024;

    private static HostFacts dataDir(Path dataDir) {
        return new HostFacts() {
            @Override public Map<String, String> attributes() { return Map.of(); }
            @Override public Map<String, String> options() { return Map.of(); }
            @Override public Path dataDir() { return dataDir; }
        };
    }

    private StorageFingerprinter fixture() throws Exception {
        return new StorageFingerprinter(Path.of(getClass().getResource("/fixture").toURI()), directory -> TEN_GIB);
    }

    @Test
    void dataDirOnItsOwnDisk() throws Exception {
        FingerprintResult result = fixture().fingerprint(dataDir(Path.of("/var/lib/nomad")));

        assertEquals(Map.of(
                "unique.storage.volume", "/dev/sdb1",
                "unique.storage.bytestotal", "10737418240"), result.attributes());
        assertEquals(10240, result.resources().diskMb());
        assertEquals(0, result.resources().memoryMb());
    }

    @Test
    void longestMountPointWinsAndOvermountsCount() throws Exception {
        StorageFingerprinter storage = fixture();

        assertEquals("/dev/mapper/vg0-alloc", storage.volumeOf(Path.of("/var/lib/nomad/alloc/1234")));
        assertEquals("/dev/sdc1", storage.volumeOf(Path.of("/var/lib/nomad2/alloc")));
        assertEquals("/dev/sda2", storage.volumeOf(Path.of("/var/lib/nomadic")));
        assertEquals("/dev/sde1", storage.volumeOf(Path.of("/srv/my disk/data")));
        assertEquals("/dev/sda2", storage.volumeOf(Path.of("/opt/caravan")));
    }

    @Test
    void allocDirIsPreferredOnceItExists(@TempDir Path dataDir) throws Exception {
        assertEquals(dataDir.toRealPath(), StorageFingerprinter.storageDirectory(dataDir));
        Files.createDirectory(dataDir.resolve("alloc"));
        assertEquals(dataDir.resolve("alloc").toRealPath(), StorageFingerprinter.storageDirectory(dataDir));
    }

    @Test
    void notPeriodic() {
        assertEquals(Optional.empty(), new StorageFingerprinter().period());
    }

    @Test
    void realMachine(@TempDir Path dataDir) throws Exception {
        assumeTrue(System.getProperty("os.name").equals("Linux"));

        FingerprintResult result = new StorageFingerprinter().fingerprint(dataDir(dataDir));

        assertFalse(result.attributes().get("unique.storage.volume").isBlank());
        assertTrue(Long.parseLong(result.attributes().get("unique.storage.bytestotal")) > 0);
        assertTrue(result.resources().diskMb() > 0);
    }
}
