package io.caravan.client.internal.node;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.caravan.api.model.DriverInfo;
import io.caravan.api.model.NetworkResource;
import io.caravan.api.model.Node;
import io.caravan.api.model.NodeReservedResources;
import io.caravan.api.model.NodeResources;
import io.caravan.client.internal.ClientSettings;
import io.caravan.client.internal.fingerprint.NodeFacts;
import io.caravan.plugin.api.fingerprint.FingerprintResult.HostResources;

/**
 * Builds the {@link Node} this client registers: identity from the agent, class/pool/meta/reserved from the
 * {@code client} block, attributes and resources from the fingerprinters, drivers from the driver manager, and
 * the attributes Nomad's own {@code nomad} fingerprinter sets.
 */
public final class NodeBuilder {
    /** Nomad's network fingerprint attribute that gives the node's address. */
    public static final String IP_ADDRESS_ATTR = "unique.network.ip-address";
    static final int DEFAULT_MBITS = 1000;

    /** Who this node is, from the agent. */
    public record Identity(String nodeId, String secretId, String name, String datacenter, String httpAddr,
                           boolean httpTls, String version) {
    }

    private NodeBuilder() {
    }

    public static Node build(Identity id, ClientSettings settings, NodeFacts facts, Map<String, DriverInfo> drivers) {
        return new Node(id.nodeId(), id.secretId(), id.datacenter(), id.name(), "", id.httpAddr(), id.httpTls(),
                attributes(id, facts, drivers), resources(settings, facts), reserved(settings), facts.links(),
                settings.meta(), settings.nodeClass(), settings.nodePool(), null, null,
                settings.defaultIneligible() ? Node.INELIGIBLE : Node.ELIGIBLE, Node.STATUS_INITIALIZING, "", null, 0,
                List.of(), drivers, null, null, Map.of(), null, null, settings.nodeMaxAllocs(), 0, 0, 0, 0);
    }

    static Map<String, String> attributes(Identity id, NodeFacts facts, Map<String, DriverInfo> drivers) {
        Map<String, String> attrs = new TreeMap<>(facts.attributes());
        // What Nomad's "nomad" fingerprinter reports (client/fingerprint/nomad.go), plus our own version.
        attrs.put("nomad.version", id.version());
        attrs.put("nomad.service_discovery", "true");
        attrs.put("caravan.version", id.version());
        if (id.httpAddr() != null && !id.httpAddr().isBlank()) {
            attrs.put("unique.advertise.address", id.httpAddr());
        }
        // Nomad merges each driver's attributes into the node's and keeps the legacy driver.<name>=1 for detected
        // drivers (client/node_updater.go).
        drivers.forEach((name, info) -> {
            attrs.putAll(info.attributes());
            if (info.detected()) {
                attrs.put("driver." + name, "1");
            }
        });
        return attrs;
    }

    static NodeResources resources(ClientSettings settings, NodeFacts facts) {
        HostResources found = facts.resources();
        long cpu = settings.cpuTotalCompute() > 0 ? settings.cpuTotalCompute() : found.cpuTotalMhz();
        long memory = settings.memoryTotalMb() > 0 ? settings.memoryTotalMb() : found.memoryMb();
        long disk = settings.diskTotalMb() > 0 ? settings.diskTotalMb() : found.diskMb();
        return new NodeResources(new NodeResources.Cpu(cpu, found.cpuCores(), List.of()), null,
                new NodeResources.Memory(memory), new NodeResources.Disk(disk), networks(settings, facts), List.of(),
                List.of(), settings.minDynamicPort(), settings.maxDynamicPort());
    }

    private static List<NetworkResource> networks(ClientSettings settings, NodeFacts facts) {
        String ip = facts.attributes().get(IP_ADDRESS_ATTR);
        if (ip == null || ip.isBlank()) {
            return List.of();
        }
        // The fingerprint SPI reports the address, not the device it chose: the device is known only when configured.
        String device = settings.networkInterface().isBlank() ? null : settings.networkInterface();
        String cidr = ip + (ip.contains(":") ? "/128" : "/32");
        int mbits = settings.networkSpeed() > 0 ? settings.networkSpeed() : DEFAULT_MBITS;
        return List.of(new NetworkResource(NetworkResource.MODE_HOST, device, cidr, ip, null, mbits, null,
                List.of(), List.of(), null));
    }

    static NodeReservedResources reserved(ClientSettings settings) {
        ClientSettings.Reserved r = settings.reserved();
        return new NodeReservedResources(new NodeReservedResources.Cpu(r.cpuMhz(), List.of()),
                new NodeResources.Memory(r.memoryMb()), new NodeResources.Disk(r.diskMb()),
                new NodeReservedResources.Networks(r.reservedPorts()));
    }
}
