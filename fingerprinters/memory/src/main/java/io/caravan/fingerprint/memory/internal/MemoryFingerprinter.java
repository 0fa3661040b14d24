package io.caravan.fingerprint.memory.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.osgi.service.component.annotations.Component;

import io.caravan.plugin.api.fingerprint.FingerprintResult;
import io.caravan.plugin.api.fingerprint.FingerprintResult.HostResources;
import io.caravan.plugin.api.fingerprint.Fingerprinter;
import io.caravan.plugin.api.fingerprint.FingerprintName;
import io.caravan.plugin.api.fingerprint.HostFacts;

/**
 * Nomad's {@code memory} fingerprint: {@code memory.totalbytes} and the node's memory in MiB, from the
 * {@code MemTotal} line of {@code /proc/meminfo} (what gopsutil reports as the total).
 */
@Component(service = Fingerprinter.class,
        property = "caravan.fingerprint.phase=host")
@FingerprintName("memory")
public final class MemoryFingerprinter implements Fingerprinter {
    private static final long BYTES_PER_MIB = 1024 * 1024;

    private final Path root;

    public MemoryFingerprinter() {
        this(Path.of("/"));
    }

    /** @param root where {@code proc/meminfo} is looked up (a fixture directory in tests) */
    MemoryFingerprinter(Path root) {
        this.root = root;
    }

    @Override
    public FingerprintResult fingerprint(HostFacts soFar) throws IOException {
        long totalBytes = memTotalBytes(Files.readAllLines(root.resolve("proc/meminfo")));
        if (totalBytes <= 0) {
            // Nomad adds nothing when the total is unknown.
            return FingerprintResult.attributes(Map.of());
        }
        return new FingerprintResult(Map.of("memory.totalbytes", Long.toString(totalBytes)), Map.of(),
                new HostResources(0, 0, totalBytes / BYTES_PER_MIB, 0));
    }

    /** {@code MemTotal:       24683656 kB} → bytes; 0 when the line is missing. */
    static long memTotalBytes(Iterable<String> meminfo) {
        for (String line : meminfo) {
            if (line.startsWith("MemTotal:")) {
                String[] fields = line.substring("MemTotal:".length()).trim().split("\\s+");
                long value = Long.parseLong(fields[0]);
                // The kernel always writes kB (KiB); no unit means bytes.
                return fields.length > 1 && fields[1].equalsIgnoreCase("kB") ? value * 1024 : value;
            }
        }
        return 0;
    }
}
