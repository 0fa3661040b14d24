package io.caravan.plugin.api.fingerprint;

import java.util.Map;

/**
 * Node attributes (Nomad's names, e.g. {@code cpu.numcores}, {@code kernel.name}), links (e.g. {@code aws.ec2}),
 * and resource totals; a total of 0 means "not detected by this fingerprinter".
 */
public record FingerprintResult(Map<String, String> attributes, Map<String, String> links, HostResources resources) {
    public FingerprintResult {
        attributes = Map.copyOf(attributes);
        links = Map.copyOf(links);
    }

    public static FingerprintResult attributes(Map<String, String> attributes) {
        return new FingerprintResult(attributes, Map.of(), HostResources.NONE);
    }

    /** Totals a node can offer; the client subtracts {@code reserved}. */
    public record HostResources(long cpuTotalMhz, int cpuCores, long memoryMb, long diskMb) {
        public static final HostResources NONE = new HostResources(0, 0, 0, 0);
    }
}
