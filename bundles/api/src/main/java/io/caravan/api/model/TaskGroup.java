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
}
