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
        return toBuilder().status(status).statusDescription(statusDescription).statusUpdatedAt(statusUpdatedAt).build();
    }

    public Node withSchedulingEligibility(String schedulingEligibility) {
        return toBuilder().schedulingEligibility(schedulingEligibility).build();
    }

    public Node withIndexes(long createIndex, long modifyIndex) {
        return toBuilder().createIndex(createIndex).modifyIndex(modifyIndex).build();
    }

    /** A drain update: the strategy (null ends the drain) and the {@code LastDrain} metadata. */
    public Node withDrain(DrainStrategy drainStrategy, DrainMetadata lastDrain) {
        return toBuilder().drainStrategy(drainStrategy).lastDrain(lastDrain).build();
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

    /** A copy to change: {@code x.toBuilder().field(v).build()}. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Sets any field of a copy; generated from the record's components, keep it in their order. */
    public static final class Builder {
        private String id;
        private String secretId;
        private String datacenter;
        private String name;
        private String cgroupParent;
        private String httpAddr;
        private boolean tlsEnabled;
        private Map<String, String> attributes;
        private NodeResources nodeResources;
        private NodeReservedResources reservedResources;
        private Map<String, String> links;
        private Map<String, String> meta;
        private String nodeClass;
        private String nodePool;
        private String computedClass;
        private DrainStrategy drainStrategy;
        private String schedulingEligibility;
        private String status;
        private String statusDescription;
        private String identitySigningKeyId;
        private long statusUpdatedAt;
        private List<NodeEvent> events;
        private Map<String, DriverInfo> drivers;
        private Map<String, Object> csiControllerPlugins;
        private Map<String, Object> csiNodePlugins;
        private Map<String, HostVolumeInfo> hostVolumes;
        private Map<String, Object> hostNetworks;
        private DrainMetadata lastDrain;
        private int nodeMaxAllocs;
        private long lastMissedHeartbeatIndex;
        private long lastAllocUpdateIndex;
        private long createIndex;
        private long modifyIndex;

        private Builder(Node from) {
            id = from.id;
            secretId = from.secretId;
            datacenter = from.datacenter;
            name = from.name;
            cgroupParent = from.cgroupParent;
            httpAddr = from.httpAddr;
            tlsEnabled = from.tlsEnabled;
            attributes = from.attributes;
            nodeResources = from.nodeResources;
            reservedResources = from.reservedResources;
            links = from.links;
            meta = from.meta;
            nodeClass = from.nodeClass;
            nodePool = from.nodePool;
            computedClass = from.computedClass;
            drainStrategy = from.drainStrategy;
            schedulingEligibility = from.schedulingEligibility;
            status = from.status;
            statusDescription = from.statusDescription;
            identitySigningKeyId = from.identitySigningKeyId;
            statusUpdatedAt = from.statusUpdatedAt;
            events = from.events;
            drivers = from.drivers;
            csiControllerPlugins = from.csiControllerPlugins;
            csiNodePlugins = from.csiNodePlugins;
            hostVolumes = from.hostVolumes;
            hostNetworks = from.hostNetworks;
            lastDrain = from.lastDrain;
            nodeMaxAllocs = from.nodeMaxAllocs;
            lastMissedHeartbeatIndex = from.lastMissedHeartbeatIndex;
            lastAllocUpdateIndex = from.lastAllocUpdateIndex;
            createIndex = from.createIndex;
            modifyIndex = from.modifyIndex;
        }

        public Builder id(String id) {
            this.id = id;
            return this;
        }

        public Builder secretId(String secretId) {
            this.secretId = secretId;
            return this;
        }

        public Builder datacenter(String datacenter) {
            this.datacenter = datacenter;
            return this;
        }

        public Builder name(String name) {
            this.name = name;
            return this;
        }

        public Builder cgroupParent(String cgroupParent) {
            this.cgroupParent = cgroupParent;
            return this;
        }

        public Builder httpAddr(String httpAddr) {
            this.httpAddr = httpAddr;
            return this;
        }

        public Builder tlsEnabled(boolean tlsEnabled) {
            this.tlsEnabled = tlsEnabled;
            return this;
        }

        public Builder attributes(Map<String, String> attributes) {
            this.attributes = attributes;
            return this;
        }

        public Builder nodeResources(NodeResources nodeResources) {
            this.nodeResources = nodeResources;
            return this;
        }

        public Builder reservedResources(NodeReservedResources reservedResources) {
            this.reservedResources = reservedResources;
            return this;
        }

        public Builder links(Map<String, String> links) {
            this.links = links;
            return this;
        }

        public Builder meta(Map<String, String> meta) {
            this.meta = meta;
            return this;
        }

        public Builder nodeClass(String nodeClass) {
            this.nodeClass = nodeClass;
            return this;
        }

        public Builder nodePool(String nodePool) {
            this.nodePool = nodePool;
            return this;
        }

        public Builder computedClass(String computedClass) {
            this.computedClass = computedClass;
            return this;
        }

        public Builder drainStrategy(DrainStrategy drainStrategy) {
            this.drainStrategy = drainStrategy;
            return this;
        }

        public Builder schedulingEligibility(String schedulingEligibility) {
            this.schedulingEligibility = schedulingEligibility;
            return this;
        }

        public Builder status(String status) {
            this.status = status;
            return this;
        }

        public Builder statusDescription(String statusDescription) {
            this.statusDescription = statusDescription;
            return this;
        }

        public Builder identitySigningKeyId(String identitySigningKeyId) {
            this.identitySigningKeyId = identitySigningKeyId;
            return this;
        }

        public Builder statusUpdatedAt(long statusUpdatedAt) {
            this.statusUpdatedAt = statusUpdatedAt;
            return this;
        }

        public Builder events(List<NodeEvent> events) {
            this.events = events;
            return this;
        }

        public Builder drivers(Map<String, DriverInfo> drivers) {
            this.drivers = drivers;
            return this;
        }

        public Builder csiControllerPlugins(Map<String, Object> csiControllerPlugins) {
            this.csiControllerPlugins = csiControllerPlugins;
            return this;
        }

        public Builder csiNodePlugins(Map<String, Object> csiNodePlugins) {
            this.csiNodePlugins = csiNodePlugins;
            return this;
        }

        public Builder hostVolumes(Map<String, HostVolumeInfo> hostVolumes) {
            this.hostVolumes = hostVolumes;
            return this;
        }

        public Builder hostNetworks(Map<String, Object> hostNetworks) {
            this.hostNetworks = hostNetworks;
            return this;
        }

        public Builder lastDrain(DrainMetadata lastDrain) {
            this.lastDrain = lastDrain;
            return this;
        }

        public Builder nodeMaxAllocs(int nodeMaxAllocs) {
            this.nodeMaxAllocs = nodeMaxAllocs;
            return this;
        }

        public Builder lastMissedHeartbeatIndex(long lastMissedHeartbeatIndex) {
            this.lastMissedHeartbeatIndex = lastMissedHeartbeatIndex;
            return this;
        }

        public Builder lastAllocUpdateIndex(long lastAllocUpdateIndex) {
            this.lastAllocUpdateIndex = lastAllocUpdateIndex;
            return this;
        }

        public Builder createIndex(long createIndex) {
            this.createIndex = createIndex;
            return this;
        }

        public Builder modifyIndex(long modifyIndex) {
            this.modifyIndex = modifyIndex;
            return this;
        }

        public Node build() {
            return new Node(
                id, secretId, datacenter, name, cgroupParent, httpAddr, tlsEnabled, attributes, nodeResources,
                reservedResources, links, meta, nodeClass, nodePool, computedClass, drainStrategy,
                schedulingEligibility, status, statusDescription, identitySigningKeyId, statusUpdatedAt, events,
                drivers, csiControllerPlugins, csiNodePlugins, hostVolumes, hostNetworks, lastDrain, nodeMaxAllocs,
                lastMissedHeartbeatIndex, lastAllocUpdateIndex, createIndex, modifyIndex);
        }
    }
}
