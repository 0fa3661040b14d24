package io.caravan.client.internal.fingerprint;

import java.util.Map;

import io.caravan.plugin.api.fingerprint.FingerprintResult.HostResources;

/** What all fingerprinters found, merged: attributes, links and resource totals (0 = not detected). */
public record NodeFacts(Map<String, String> attributes, Map<String, String> links, HostResources resources) {
    public static final NodeFacts EMPTY = new NodeFacts(Map.of(), Map.of(), HostResources.NONE);

    public NodeFacts {
        attributes = Map.copyOf(attributes);
        links = Map.copyOf(links);
    }
}
