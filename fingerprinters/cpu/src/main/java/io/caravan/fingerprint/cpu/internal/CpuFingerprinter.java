package io.caravan.fingerprint.cpu.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;

import org.osgi.service.component.annotations.Component;

import io.caravan.fingerprint.cpu.internal.CpuTopology.Core;
import io.caravan.plugin.api.fingerprint.FingerprintResult;
import io.caravan.plugin.api.fingerprint.FingerprintResult.HostResources;
import io.caravan.plugin.api.fingerprint.Fingerprinter;
import io.caravan.plugin.api.fingerprint.FingerprintName;
import io.caravan.plugin.api.fingerprint.HostFacts;

/**
 * Nomad's {@code cpu} fingerprint, with its {@code arch} fingerprint's {@code cpu.arch}: model, frequency, core
 * counts, total and usable compute (cores × MHz), NUMA cores, and the node's CPU resources.
 */
@Component(service = Fingerprinter.class,
        property = "caravan.fingerprint.phase=host")
@FingerprintName("cpu")
public final class CpuFingerprinter implements Fingerprinter {

    /** Nomad before 1.7 assumed 1 core × 1 GHz when it could not measure speed (current Nomad reports 0). */
    static final long UNKNOWN_SPEED_TOTAL_MHZ = 1000;

    private final Path root;
    private final String javaOsArch;

    public CpuFingerprinter() {
        this(Path.of("/"), System.getProperty("os.arch"));
    }

    /**
     * @param root where {@code proc/} and {@code sys/} are looked up (a fixture in tests)
     * @param javaOsArch the JVM's {@code os.arch}, reported under Go's name
     */
    CpuFingerprinter(Path root, String javaOsArch) {
        this.root = root;
        this.javaOsArch = javaOsArch;
    }

    @Override
    public FingerprintResult fingerprint(HostFacts soFar) throws IOException {
        CpuTopology topology = CpuTopology.scan(root);
        Map<String, String> attributes = new HashMap<>();
        attributes.put("cpu.arch", goArch(javaOsArch));
        modelName().ifPresent(model -> attributes.put("cpu.modelname", model));

        List<Core> performance = topology.cores().stream().filter(Core::performance).toList();
        List<Core> efficiency = topology.cores().stream().filter(c -> !c.performance()).toList();
        attributes.put("cpu.numcores", Integer.toString(topology.count()));
        if (!performance.isEmpty() && !efficiency.isEmpty()) {
            // a hybrid CPU: Nomad reports each grade's speed and count
            putMhz(attributes, "cpu.frequency.performance", performance.get(performance.size() - 1).mhz());
            putMhz(attributes, "cpu.frequency.efficiency", efficiency.get(efficiency.size() - 1).mhz());
            attributes.put("cpu.numcores.performance", Integer.toString(performance.size()));
            attributes.put("cpu.numcores.efficiency", Integer.toString(efficiency.size()));
        } else if (topology.count() > 0) {
            putMhz(attributes, "cpu.frequency", topology.cores().get(topology.count() - 1).mhz());
        }
        attributes.put("cpu.reservablecores", Integer.toString(topology.usableCount()));

        long total = topology.totalMhz();
        long usable = topology.usableMhz();
        if (total == 0) {
            total = UNKNOWN_SPEED_TOTAL_MHZ;
            usable = UNKNOWN_SPEED_TOTAL_MHZ;
        }
        attributes.put("cpu.totalcompute", Long.toString(total));
        attributes.put("cpu.usablecompute", Long.toString(usable));

        Map<Integer, SortedSet<Integer>> byNode = topology.coresByNode();
        attributes.put("numa.node.count", Integer.toString(byNode.size()));
        byNode.forEach((node, cores) -> attributes.put("numa.node" + node + ".cores", CpuTopology.formatIds(cores)));

        return new FingerprintResult(attributes, Map.of(),
                new HostResources(total, topology.usableCount(), 0, 0));
    }

    private static void putMhz(Map<String, String> attributes, String key, long mhz) {
        if (mhz > 0) {
            attributes.put(key, Long.toString(mhz));
        }
    }

    /** The CPU's brand string; x86 kernels print it as "model name" (Nomad asks CPUID; ARM has neither). */
    private Optional<String> modelName() throws IOException {
        Path cpuinfo = root.resolve("proc/cpuinfo");
        if (!Files.isReadable(cpuinfo)) {
            return Optional.empty();
        }
        return CpuTopology.cpuinfoValue(Files.readAllLines(cpuinfo), "model name");
    }

    /** Go's GOARCH for the JVM's os.arch. */
    static String goArch(String javaOsArch) {
        switch (javaOsArch) {
            case "amd64":
            case "x86_64": return "amd64";
            case "aarch64":
            case "arm64": return "arm64";
            case "x86":
            case "i386":
            case "i486":
            case "i586":
            case "i686": return "386";
            case "ppc64le": return "ppc64le";
            case "s390x": return "s390x";
            case "riscv64": return "riscv64";
            default: return javaOsArch.startsWith("arm") ? "arm" : javaOsArch;
        }
    }
}
