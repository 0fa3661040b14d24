package io.caravan.api.model;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A {@code group} block. {@code Scaling} and {@code Consul} are kept raw. {@code StopAfterClientDisconnect},
 * {@code MaxClientDisconnect} and {@code PreventRescheduleOnLost} are deprecated (ignored since Nomad 1.10) but
 * still accepted and echoed.
 */
public record TaskGroup(
        String name,
        Integer count,
        List<Constraint> constraints,
        List<Affinity> affinities,
        List<Task> tasks,
        List<Spread> spreads,
        Map<String, VolumeRequest> volumes,
        RestartPolicy restartPolicy,
        DisconnectStrategy disconnect,
        ReschedulePolicy reschedulePolicy,
        EphemeralDisk ephemeralDisk,
        UpdateStrategy update,
        MigrateStrategy migrate,
        List<NetworkResource> networks,
        Map<String, String> meta,
        List<Service> services,
        @NanoDuration Duration shutdownDelay,
        @NanoDuration Duration stopAfterClientDisconnect,
        @NanoDuration Duration maxClientDisconnect,
        Map<String, Object> scaling,
        Map<String, Object> consul,
        Boolean preventRescheduleOnLost,
        @NanoDuration Duration maxRunDuration) {

    public TaskGroup {
        constraints = Copy.list(constraints);
        affinities = Copy.list(affinities);
        tasks = Copy.list(tasks);
        spreads = Copy.list(spreads);
        volumes = Copy.map(volumes);
        networks = Copy.list(networks);
        meta = Copy.map(meta);
        services = Copy.list(services);
        scaling = Copy.rawOrNull(scaling);
        consul = Copy.rawOrNull(consul);
    }

    /**
     * How long the allocations of a node that stopped heartbeating stay {@code unknown} before they are lost: the
     * {@code disconnect} block's {@code lost_after} (the deprecated {@code max_client_disconnect} is folded into it
     * when the job is registered), or null when the group has no window.
     */
    public Duration lostAfter() {
        Duration window = disconnect == null ? null : disconnect.lostAfter();
        return window == null || window.isZero() || window.isNegative() ? null : window;
    }

    /** A copy to change: {@code x.toBuilder().field(v).build()}. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Sets any field of a copy; generated from the record's components, keep it in their order. */
    public static final class Builder {
        private String name;
        private Integer count;
        private List<Constraint> constraints;
        private List<Affinity> affinities;
        private List<Task> tasks;
        private List<Spread> spreads;
        private Map<String, VolumeRequest> volumes;
        private RestartPolicy restartPolicy;
        private DisconnectStrategy disconnect;
        private ReschedulePolicy reschedulePolicy;
        private EphemeralDisk ephemeralDisk;
        private UpdateStrategy update;
        private MigrateStrategy migrate;
        private List<NetworkResource> networks;
        private Map<String, String> meta;
        private List<Service> services;
        private Duration shutdownDelay;
        private Duration stopAfterClientDisconnect;
        private Duration maxClientDisconnect;
        private Map<String, Object> scaling;
        private Map<String, Object> consul;
        private Boolean preventRescheduleOnLost;
        private Duration maxRunDuration;

        private Builder(TaskGroup from) {
            name = from.name;
            count = from.count;
            constraints = from.constraints;
            affinities = from.affinities;
            tasks = from.tasks;
            spreads = from.spreads;
            volumes = from.volumes;
            restartPolicy = from.restartPolicy;
            disconnect = from.disconnect;
            reschedulePolicy = from.reschedulePolicy;
            ephemeralDisk = from.ephemeralDisk;
            update = from.update;
            migrate = from.migrate;
            networks = from.networks;
            meta = from.meta;
            services = from.services;
            shutdownDelay = from.shutdownDelay;
            stopAfterClientDisconnect = from.stopAfterClientDisconnect;
            maxClientDisconnect = from.maxClientDisconnect;
            scaling = from.scaling;
            consul = from.consul;
            preventRescheduleOnLost = from.preventRescheduleOnLost;
            maxRunDuration = from.maxRunDuration;
        }

        public Builder name(String name) {
            this.name = name;
            return this;
        }

        public Builder count(Integer count) {
            this.count = count;
            return this;
        }

        public Builder constraints(List<Constraint> constraints) {
            this.constraints = constraints;
            return this;
        }

        public Builder affinities(List<Affinity> affinities) {
            this.affinities = affinities;
            return this;
        }

        public Builder tasks(List<Task> tasks) {
            this.tasks = tasks;
            return this;
        }

        public Builder spreads(List<Spread> spreads) {
            this.spreads = spreads;
            return this;
        }

        public Builder volumes(Map<String, VolumeRequest> volumes) {
            this.volumes = volumes;
            return this;
        }

        public Builder restartPolicy(RestartPolicy restartPolicy) {
            this.restartPolicy = restartPolicy;
            return this;
        }

        public Builder disconnect(DisconnectStrategy disconnect) {
            this.disconnect = disconnect;
            return this;
        }

        public Builder reschedulePolicy(ReschedulePolicy reschedulePolicy) {
            this.reschedulePolicy = reschedulePolicy;
            return this;
        }

        public Builder ephemeralDisk(EphemeralDisk ephemeralDisk) {
            this.ephemeralDisk = ephemeralDisk;
            return this;
        }

        public Builder update(UpdateStrategy update) {
            this.update = update;
            return this;
        }

        public Builder migrate(MigrateStrategy migrate) {
            this.migrate = migrate;
            return this;
        }

        public Builder networks(List<NetworkResource> networks) {
            this.networks = networks;
            return this;
        }

        public Builder meta(Map<String, String> meta) {
            this.meta = meta;
            return this;
        }

        public Builder services(List<Service> services) {
            this.services = services;
            return this;
        }

        public Builder shutdownDelay(Duration shutdownDelay) {
            this.shutdownDelay = shutdownDelay;
            return this;
        }

        public Builder stopAfterClientDisconnect(Duration stopAfterClientDisconnect) {
            this.stopAfterClientDisconnect = stopAfterClientDisconnect;
            return this;
        }

        public Builder maxClientDisconnect(Duration maxClientDisconnect) {
            this.maxClientDisconnect = maxClientDisconnect;
            return this;
        }

        public Builder scaling(Map<String, Object> scaling) {
            this.scaling = scaling;
            return this;
        }

        public Builder consul(Map<String, Object> consul) {
            this.consul = consul;
            return this;
        }

        public Builder preventRescheduleOnLost(Boolean preventRescheduleOnLost) {
            this.preventRescheduleOnLost = preventRescheduleOnLost;
            return this;
        }

        public Builder maxRunDuration(Duration maxRunDuration) {
            this.maxRunDuration = maxRunDuration;
            return this;
        }

        public TaskGroup build() {
            return new TaskGroup(
                name, count, constraints, affinities, tasks, spreads, volumes, restartPolicy, disconnect,
                reschedulePolicy, ephemeralDisk, update, migrate, networks, meta, services, shutdownDelay,
                stopAfterClientDisconnect, maxClientDisconnect, scaling, consul, preventRescheduleOnLost,
                maxRunDuration);
        }
    }
}
