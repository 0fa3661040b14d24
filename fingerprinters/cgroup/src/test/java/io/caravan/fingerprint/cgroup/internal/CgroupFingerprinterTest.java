package io.caravan.fingerprint.cgroup.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.caravan.plugin.api.fingerprint.HostFacts;

class CgroupFingerprinterTest {

    private static final HostFacts NO_FACTS = new HostFacts() {
        @Override public Map<String, String> attributes() { return Map.of(); }
        @Override public Map<String, String> options() { return Map.of(); }
        @Override public Path dataDir() { return Path.of("/tmp"); }
    };

    private Map<String, String> fingerprint(String fixture) throws Exception {
        Path root = Path.of(getClass().getResource("/" + fixture).toURI());
        return new CgroupFingerprinter(root).fingerprint(NO_FACTS).attributes();
    }

    @Test
    void v1AsRoot() throws Exception {
        // this machine's mountinfo: a tmpfs on /sys/fs/cgroup, cpu is the first controller mount
        assertEquals(Map.of(
                "os.cgroups.version", "1",
                "unique.cgroup.mountpoint", "/sys/fs/cgroup/cpu",
                "unique.cgroup.version", "v1"), fingerprint("v1"));
    }

    @Test
    void v2AsRoot() throws Exception {
        assertEquals(Map.of(
                "os.cgroups.version", "2",
                "unique.cgroup.mountpoint", "/sys/fs/cgroup",
                "unique.cgroup.version", "v2"), fingerprint("v2"));
    }

    @Test
    void v2AsUserWithoutOwnSliceCannotManageCgroups() throws Exception {
        assertEquals(Map.of(
                "unique.cgroup.mountpoint", "/sys/fs/cgroup",
                "unique.cgroup.version", "v2"), fingerprint("v2-user"));
    }

    @Test
    void noCgroupsNoAttributes() throws Exception {
        assertEquals(Map.of(), fingerprint("none"));
    }

    @Test
    void periodicEvery15Seconds() {
        assertEquals(Optional.of(Duration.ofSeconds(15)), new CgroupFingerprinter().period());
    }

    @Test
    void realMachine() throws Exception {
        assumeTrue(System.getProperty("os.name").equals("Linux"));
        assumeTrue(Files.isDirectory(Path.of("/sys/fs/cgroup")));

        Map<String, String> attributes = new CgroupFingerprinter().fingerprint(NO_FACTS).attributes();

        assertTrue(attributes.get("unique.cgroup.version").matches("v[12]"), attributes.toString());
        assertTrue(attributes.get("unique.cgroup.mountpoint").startsWith("/sys/fs/cgroup"));
    }
}
