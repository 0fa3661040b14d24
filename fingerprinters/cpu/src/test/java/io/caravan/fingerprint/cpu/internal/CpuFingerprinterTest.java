package io.caravan.fingerprint.cpu.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.Map;
import java.util.Map.Entry;

import org.junit.jupiter.api.Test;

import io.caravan.plugin.api.fingerprint.FingerprintResult;
import io.caravan.plugin.api.fingerprint.FingerprintResult.HostResources;
import io.caravan.plugin.api.fingerprint.HostFacts;

class CpuFingerprinterTest {

    private static final HostFacts NO_FACTS = new HostFacts() {
        @Override public Map<String, String> attributes() { return Map.of(); }
        @Override public Map<String, String> options() { return Map.of(); }
        @Override public Path dataDir() { return Path.of("/tmp"); }
    };

    private FingerprintResult fingerprint(String fixture, String javaOsArch) throws Exception {
        Path root = Path.of(getClass().getResource("/" + fixture).toURI());
        return new CpuFingerprinter(root, javaOsArch).fingerprint(NO_FACTS);
    }

    @Test
    void vmWithoutCpufreqFallsBackToCpuinfo() throws Exception {
        // this machine: NUMA data but no cpufreq, so sysfs gives no speed; cpuinfo says 2445.412 MHz
        FingerprintResult result = fingerprint("vm", "amd64");

        assertEquals(Map.ofEntries(
                Map.entry("cpu.arch", "amd64"),
                Map.entry("cpu.modelname", "AMD EPYC"),
                Map.entry("cpu.frequency", "2445"),
                Map.entry("cpu.numcores", "2"),
                Map.entry("cpu.reservablecores", "2"),
                Map.entry("cpu.totalcompute", "4890"),
                Map.entry("cpu.usablecompute", "4890"),
                Map.entry("numa.node.count", "1"),
                Map.entry("numa.node0.cores", "0-1")), result.attributes());
        assertEquals(new HostResources(4890, 2, 0, 0), result.resources());
    }

    @Test
    void hybridCpuReportsBothGrades() throws Exception {
        FingerprintResult result = fingerprint("hybrid", "amd64");

        assertEquals(Map.ofEntries(
                Map.entry("cpu.arch", "amd64"),
                Map.entry("cpu.modelname", "12th Gen Intel(R) Core(TM) i7-1260P"),
                Map.entry("cpu.frequency.performance", "2100"),
                Map.entry("cpu.frequency.efficiency", "1500"),
                Map.entry("cpu.numcores", "6"),
                Map.entry("cpu.numcores.performance", "4"),
                Map.entry("cpu.numcores.efficiency", "2"),
                Map.entry("cpu.reservablecores", "6"),
                Map.entry("cpu.totalcompute", "11400"),
                Map.entry("cpu.usablecompute", "11400"),
                Map.entry("numa.node.count", "1"),
                Map.entry("numa.node0.cores", "0-5")), result.attributes());
        assertEquals(new HostResources(11400, 6, 0, 0), result.resources());
    }

    @Test
    void numaServerWithNomadCpuset() throws Exception {
        // acpi-cpufreq: the CPPC nominal 2450 MHz, not the 3.5 GHz boost; nomad.slice may use cores 0-2
        FingerprintResult result = fingerprint("numa", "amd64");

        assertEquals(Map.ofEntries(
                Map.entry("cpu.arch", "amd64"),
                Map.entry("cpu.modelname", "AMD EPYC 7763 64-Core Processor"),
                Map.entry("cpu.frequency", "2450"),
                Map.entry("cpu.numcores", "4"),
                Map.entry("cpu.reservablecores", "3"),
                Map.entry("cpu.totalcompute", "9800"),
                Map.entry("cpu.usablecompute", "7350"),
                Map.entry("numa.node.count", "2"),
                Map.entry("numa.node0.cores", "0-1"),
                Map.entry("numa.node1.cores", "2-3")), result.attributes());
        assertEquals(new HostResources(9800, 3, 0, 0), result.resources());
    }

    @Test
    void unknownSpeedUsesTheOneGigahertzDefault() throws Exception {
        FingerprintResult result = fingerprint("arm", "aarch64");

        assertEquals(Map.ofEntries(
                Map.entry("cpu.arch", "arm64"),
                Map.entry("cpu.numcores", "4"),
                Map.entry("cpu.reservablecores", "4"),
                Map.entry("cpu.totalcompute", "1000"),
                Map.entry("cpu.usablecompute", "1000"),
                Map.entry("numa.node.count", "1"),
                Map.entry("numa.node0.cores", "0-3")), result.attributes());
        assertEquals(new HostResources(1000, 4, 0, 0), result.resources());
    }

    @Test
    void cpuLists() {
        assertEquals("0-3,8,10-11", CpuTopology.formatIds(CpuTopology.parseIds("0-3,8,10-11\n")));
        assertEquals("5", CpuTopology.formatIds(CpuTopology.parseIds("5")));
        assertEquals("", CpuTopology.formatIds(CpuTopology.parseIds("\n")));
    }

    @Test
    void goArchNames() {
        assertEquals("amd64", CpuFingerprinter.goArch("amd64"));
        assertEquals("arm64", CpuFingerprinter.goArch("aarch64"));
        assertEquals("386", CpuFingerprinter.goArch("x86"));
        assertEquals("arm", CpuFingerprinter.goArch("arm"));
    }

    @Test
    void realMachine() throws Exception {
        assumeTrue(System.getProperty("os.name").equals("Linux"));

        FingerprintResult result = new CpuFingerprinter().fingerprint(NO_FACTS);
        Map<String, String> attributes = result.attributes();

        assertFalse(attributes.get("cpu.arch").isBlank());
        for (String key : new String[] {"cpu.numcores", "cpu.reservablecores", "cpu.totalcompute", "numa.node.count"}) {
            assertTrue(Long.parseLong(attributes.get(key)) > 0, key + " in " + attributes);
        }
        assertTrue(Runtime.getRuntime().availableProcessors() <= Integer.parseInt(attributes.get("cpu.numcores")));
        assertTrue(result.resources().cpuTotalMhz() > 0);
        assertTrue(result.resources().cpuCores() > 0);
        for (Entry<String, String> attribute : attributes.entrySet()) {
            assertFalse(attribute.getValue().isBlank(), attribute.getKey());
        }
    }
}
