package io.caravan.api.model;

import java.util.Map;

/**
 * An entry of {@code GET /v1/nodes}. Here {@code Drain} is a plain field. {@code Attributes} is only listed with
 * {@code ?os=true}, {@code NodeResources}/{@code ReservedResources} only with {@code ?resources=true}.
 */
public record NodeListStub(
        String address,
        String id,
        Map<String, String> attributes,
        String datacenter,
        String name,
        String nodeClass,
        String nodePool,
        String version,
        boolean drain,
        String schedulingEligibility,
        String status,
        String statusDescription,
        Map<String, DriverInfo> drivers,
        Map<String, HostVolumeInfo> hostVolumes,
        NodeResources nodeResources,
        NodeReservedResources reservedResources,
        Node.DrainMetadata lastDrain,
        long createIndex,
        long modifyIndex) {

    public NodeListStub {
        attributes = Copy.map(attributes);
        drivers = Copy.map(drivers);
        hostVolumes = Copy.map(hostVolumes);
    }

    /** Nomad's {@code Node.Stub()}: {@code Address} is the host part of {@code HTTPAddr}, {@code Version} the {@code nomad.version} attribute. */
    public static NodeListStub of(Node node, boolean withOs, boolean withResources) {
        Map<String, String> attributes = withOs && node.attributes().containsKey("os.name")
                ? Map.of("os.name", node.attributes().get("os.name")) : Map.of();
        return new NodeListStub(host(node.httpAddr()), node.id(), attributes, node.datacenter(), node.name(),
                node.nodeClass(), node.nodePool(), node.attributes().get("nomad.version"), node.drain(),
                node.schedulingEligibility(), node.status(), node.statusDescription(), node.drivers(),
                node.hostVolumes(), withResources ? node.nodeResources() : null,
                withResources ? node.reservedResources() : null, node.lastDrain(), node.createIndex(),
                node.modifyIndex());
    }

    private static String host(String httpAddr) {
        if (httpAddr == null) {
            return "";
        }
        if (httpAddr.startsWith("[")) {
            int end = httpAddr.indexOf(']');
            return end > 0 ? httpAddr.substring(1, end) : httpAddr;
        }
        int colon = httpAddr.lastIndexOf(':');
        return colon >= 0 && httpAddr.indexOf(':') == colon ? httpAddr.substring(0, colon) : httpAddr;
    }
}
