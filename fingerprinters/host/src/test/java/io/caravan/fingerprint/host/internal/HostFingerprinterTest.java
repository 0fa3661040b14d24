package io.caravan.fingerprint.host.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.caravan.plugin.api.fingerprint.FingerprintResult;
import io.caravan.plugin.api.fingerprint.HostFacts;

class HostFingerprinterTest {

    private static final HostFacts NO_FACTS = new HostFacts() {
        @Override public Map<String, String> attributes() { return Map.of(); }
        @Override public Map<String, String> options() { return Map.of(); }
        @Override public Path dataDir() { return Path.of("/tmp"); }
    };

    private Map<String, String> fingerprint(String fixture, String javaOsArch) throws Exception {
        Path root = Path.of(getClass().getResource("/" + fixture).toURI());
        return new HostFingerprinter(root, javaOsArch).fingerprint(NO_FACTS).attributes();
    }

    @Test
    void debianVersionComesFromDebianVersionFile() throws Exception {
        assertEquals(Map.of(
                "os.name", "debian",
                "os.version", "12.11",
                "kernel.name", "linux",
                "kernel.version", "6.18.44-fc-v769",
                "kernel.arch", "x86_64",
                "unique.hostname", "vm",
                "unique.host_id", "3d1219c7-c4c5-404a-aa1f-6d2a48adfda4",
                "os.signals", HostFingerprinter.UNIX_SIGNALS), fingerprint("debian", "amd64"));
    }

    @Test
    void ubuntuIsToldByLsbRelease() throws Exception {
        Map<String, String> attributes = fingerprint("ubuntu", "amd64");

        assertEquals("ubuntu", attributes.get("os.name"));
        assertEquals("22.04", attributes.get("os.version"));
        assertEquals("5.15.0-105-generic", attributes.get("kernel.version"));
        // no /proc/sys/kernel/arch (kernels before 6.1): the JVM's amd64 is the kernel's x86_64
        assertEquals("x86_64", attributes.get("kernel.arch"));
        assertEquals("build-01", attributes.get("unique.hostname"));
        assertFalse(attributes.containsKey("unique.host_id"));
    }

    @Test
    void redhatFamilyIsToldByRedhatRelease() throws Exception {
        Map<String, String> attributes = fingerprint("rocky", "aarch64");

        assertEquals("rocky", attributes.get("os.name"));
        assertEquals("9.3", attributes.get("os.version"));
        assertEquals("aarch64", attributes.get("kernel.arch"));
    }

    @Test
    void otherDistributionsUseOsRelease() throws Exception {
        Map<String, String> attributes = fingerprint("opensuse", "amd64");

        assertEquals("opensuse-leap", attributes.get("os.name"));
        assertEquals("15.5", attributes.get("os.version"));
    }

    @Test
    void redhatNames() {
        assertEquals("redhat", HostFingerprinter.redhatishName("Red Hat Enterprise Linux release 9.3 (Plow)\n"));
        assertEquals("9.3", HostFingerprinter.redhatishVersion("Red Hat Enterprise Linux release 9.3 (Plow)\n"));
        assertEquals("centos", HostFingerprinter.redhatishName("CentOS Linux release 7.9.2009 (Core)"));
        assertEquals("7.9.2009", HostFingerprinter.redhatishVersion("CentOS Linux release 7.9.2009 (Core)"));
        assertEquals("rawhide", HostFingerprinter.redhatishVersion("Fedora release 41 (Rawhide)"));
    }

    @Test
    void signalsAreNomadsUnixList() {
        assertEquals(28, HostFingerprinter.UNIX_SIGNALS.split(",").length);
        assertTrue(HostFingerprinter.UNIX_SIGNALS.startsWith("SIGABRT,SIGALRM,"));
    }

    @Test
    void realMachine() throws Exception {
        assumeTrue(System.getProperty("os.name").equals("Linux"));

        FingerprintResult result = new HostFingerprinter().fingerprint(NO_FACTS);
        Map<String, String> attributes = result.attributes();

        for (String key : new String[] {"os.name", "os.version", "kernel.version", "kernel.arch", "unique.hostname"}) {
            assertFalse(attributes.getOrDefault(key, "").isBlank(), key);
        }
        assertEquals("linux", attributes.get("kernel.name"));
        assertTrue(attributes.get("kernel.version").matches("\\d+\\.\\d+.*"));
    }
}
