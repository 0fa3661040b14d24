package io.caravan.api.model;

import com.fasterxml.jackson.annotation.JsonProperty;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A {@code task} block. {@code Config} is the driver's free-form configuration; {@code Vault}, {@code Consul},
 * {@code Identity}, {@code Identities}, {@code CSIPluginConfig}, {@code ScalingPolicies}, {@code Actions} and
 * {@code Schedule} are kept raw.
 */
public record Task(
        String name,
        String driver,
        String user,
        TaskLifecycle lifecycle,
        Map<String, Object> config,
        List<Constraint> constraints,
        List<Affinity> affinities,
        Map<String, String> env,
        List<Service> services,
        Resources resources,
        RestartPolicy restartPolicy,
        Map<String, String> meta,
        @NanoDuration Duration killTimeout,
        LogConfig logConfig,
        List<TaskArtifact> artifacts,
        Map<String, Object> vault,
        Map<String, Object> consul,
        List<Template> templates,
        DispatchPayloadConfig dispatchPayload,
        List<VolumeMount> volumeMounts,
        @JsonProperty("CSIPluginConfig") Map<String, Object> csiPluginConfig,
        boolean leader,
        @NanoDuration Duration shutdownDelay,
        String killSignal,
        String kind,
        List<Map<String, Object>> scalingPolicies,
        Map<String, Object> identity,
        List<Map<String, Object>> identities,
        List<Map<String, Object>> actions,
        Map<String, Object> schedule) {

    public Task {
        shutdownDelay = shutdownDelay == null ? Duration.ZERO : shutdownDelay;
        config = Copy.raw(config);
        constraints = Copy.list(constraints);
        affinities = Copy.list(affinities);
        env = Copy.map(env);
        services = Copy.list(services);
        meta = Copy.map(meta);
        artifacts = Copy.list(artifacts);
        vault = Copy.rawOrNull(vault);
        consul = Copy.rawOrNull(consul);
        templates = Copy.list(templates);
        volumeMounts = Copy.list(volumeMounts);
        csiPluginConfig = Copy.rawOrNull(csiPluginConfig);
        scalingPolicies = rawMaps(scalingPolicies);
        identity = Copy.rawOrNull(identity);
        identities = rawMaps(identities);
        actions = rawMaps(actions);
        schedule = Copy.rawOrNull(schedule);
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> rawMaps(List<Map<String, Object>> maps) {
        return maps == null ? List.of() : (List<Map<String, Object>>) Copy.freeze(maps);
    }
}
