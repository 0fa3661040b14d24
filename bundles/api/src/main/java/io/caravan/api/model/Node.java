package io.caravan.api.model;

import com.fasterxml.jackson.annotation.JsonProperty;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A client node. {@code SecretID} is accepted on input but never written (Nomad's {@code Sanitize}); output also
 * carries the legacy {@code Drain} boolean ({@code DrainStrategy != null}), which is not stored.
 * {@code StatusUpdatedAt} is Unix <em>seconds</em>. CSI plugin info and {@code HostNetworks} are kept raw.
 */
public record Node(
        String id,
        @JsonProperty(access = JsonProperty.Access.WRITE_ONLY) String secretId,
        String datacenter,
        String name,
        String cgroupParent,
        String httpAddr,
        boolean tlsEnabled,
        Map<String, String> attributes,
        NodeResources nodeResources,
        NodeReservedResources reservedResources,
        Map<String, String> links,
        Map<String, String> meta,
        String nodeClass,
        String nodePool,
        String computedClass,
        DrainStrategy drainStrategy,
        String schedulingEligibility,
        String status,
        String statusDescription,
        String identitySigningKeyId,
        long statusUpdatedAt,
        List<NodeEvent> events,
        Map<String, DriverInfo> drivers,
        Map<String, Object> csiControllerPlugins,
        Map<String, Object> csiNodePlugins,
        Map<String, HostVolumeInfo> hostVolumes,
        Map<String, Object> hostNetworks,
        DrainMetadata lastDrain,
        int nodeMaxAllocs,
        long lastMissedHeartbeatIndex,
        long lastAllocUpdateIndex,
        long createIndex,
        long modifyIndex) {

    public static final String STATUS_INITIALIZING = "initializing";
    public static final String STATUS_READY = "ready";
    public static final String STATUS_DOWN = "down";
    public static final String STATUS_DISCONNECTED = "disconnected";

    public static final String ELIGIBLE = "eligible";
    public static final String INELIGIBLE = "ineligible";

    public static final String DEFAULT_POOL = "default";

    public Node {
        attributes = Copy.map(attributes);
        links = Copy.map(links);
        meta = Copy.map(meta);
        events = Copy.list(events);
        drivers = Copy.map(drivers);
        csiControllerPlugins = Copy.raw(csiControllerPlugins);
        csiNodePlugins = Copy.raw(csiNodePlugins);
        hostVolumes = Copy.map(hostVolumes);
        hostNetworks = Copy.raw(hostNetworks);
    }

    /** Nomad's legacy field, derived on output; ignored on input. */
    @JsonProperty(value = "Drain", access = JsonProperty.Access.READ_ONLY)
    public boolean drain() {
        return drainStrategy != null;
    }

    /** Nomad's {@code Node.Ready()}: status ready, not draining, and eligible. */
    public boolean ready() {
        return STATUS_READY.equals(status) && drainStrategy == null && ELIGIBLE.equals(schedulingEligibility);
    }

    public Node withStatus(String status, String statusDescription, long statusUpdatedAt) {
        return copy(status, statusDescription, statusUpdatedAt, schedulingEligibility, createIndex, modifyIndex);
    }

    public Node withSchedulingEligibility(String schedulingEligibility) {
        return copy(status, statusDescription, statusUpdatedAt, schedulingEligibility, createIndex, modifyIndex);
    }

    public Node withIndexes(long createIndex, long modifyIndex) {
        return copy(status, statusDescription, statusUpdatedAt, schedulingEligibility, createIndex, modifyIndex);
    }

    /** A drain update: the strategy (null ends the drain) and the {@code LastDrain} metadata. */
    public Node withDrain(DrainStrategy drainStrategy, DrainMetadata lastDrain) {
        return new Node(id, secretId, datacenter, name, cgroupParent, httpAddr, tlsEnabled, attributes, nodeResources,
                reservedResources, links, meta, nodeClass, nodePool, computedClass, drainStrategy,
                schedulingEligibility, status, statusDescription, identitySigningKeyId, statusUpdatedAt, events,
                drivers, csiControllerPlugins, csiNodePlugins, hostVolumes, hostNetworks, lastDrain, nodeMaxAllocs,
                lastMissedHeartbeatIndex, lastAllocUpdateIndex, createIndex, modifyIndex);
    }

    private Node copy(String status, String statusDescription, long statusUpdatedAt, String schedulingEligibility,
                      long createIndex, long modifyIndex) {
        return new Node(id, secretId, datacenter, name, cgroupParent, httpAddr, tlsEnabled, attributes, nodeResources,
                reservedResources, links, meta, nodeClass, nodePool, computedClass, drainStrategy,
                schedulingEligibility, status, statusDescription, identitySigningKeyId, statusUpdatedAt, events,
                drivers, csiControllerPlugins, csiNodePlugins, hostVolumes, hostNetworks, lastDrain, nodeMaxAllocs,
                lastMissedHeartbeatIndex, lastAllocUpdateIndex, createIndex, modifyIndex);
    }

    /** {@code LastDrain}: metadata about the most recent drain. */
    public record DrainMetadata(
            @GoTime Instant startedAt,
            @GoTime Instant updatedAt,
            String status,
            String accessorId,
            Map<String, String> meta) {
        public static final String STATUS_DRAINING = "draining";
        public static final String STATUS_COMPLETE = "complete";
        public static final String STATUS_CANCELED = "canceled";

        public DrainMetadata {
            meta = Copy.map(meta);
        }
    }
}
