package io.caravan.client.internal;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.caravan.api.GoDuration;
import io.caravan.client.internal.hooks.ArtifactSandbox;

/**
 * The {@code client { ... }} block as the client uses it, read from the dotted Config Admin keys of PID
 * {@code io.caravan.client} ({@code node.class}, {@code meta.rack}, {@code options.driver.raw_exec.enable},
 * {@code reserved.cpu} …). Directories default under the agent's data dir, as Nomad's do.
 */
public record ClientSettings(
        Path stateDir,
        Path allocDir,
        String nodeClass,
        String nodePool,
        Map<String, String> meta,
        Map<String, String> options,
        String networkInterface,
        int minDynamicPort,
        int maxDynamicPort,
        Duration maxKillTimeout,
        long cpuTotalCompute,
        long memoryTotalMb,
        long diskTotalMb,
        Reserved reserved,
        int nodeMaxAllocs,
        boolean defaultIneligible,
        String preferredAddressFamily,
        int networkSpeed,
        int gcMaxAllocs,
        Duration gcInterval,
        ArtifactSandbox artifactSandbox) {

    public static final int DEFAULT_MIN_DYNAMIC_PORT = 20000;
    public static final int DEFAULT_MAX_DYNAMIC_PORT = 32000;
    public static final Duration DEFAULT_MAX_KILL_TIMEOUT = Duration.ofSeconds(30);
    public static final int DEFAULT_GC_MAX_ALLOCS = 50;
    public static final Duration DEFAULT_GC_INTERVAL = Duration.ofMinutes(1);

    public ClientSettings {
        meta = Map.copyOf(meta);
        options = Map.copyOf(options);
    }

    /**
     * What fingerprinters read ({@link io.caravan.plugin.api.fingerprint.HostFacts#options()}): the {@code options}
     * map plus the client settings Nomad hands its fingerprinters directly ({@code network_interface},
     * {@code preferred_address_family}); an explicit option of the same name wins.
     */
    public Map<String, String> fingerprintOptions() {
        Map<String, String> out = new TreeMap<>();
        if (!networkInterface.isBlank()) {
            out.put("network_interface", networkInterface);
        }
        if (!preferredAddressFamily.isBlank()) {
            out.put("preferred_address_family", preferredAddressFamily);
        }
        out.putAll(options);
        return out;
    }

    /** {@code reserved { cpu, memory, disk, reserved_ports }}. */
    public record Reserved(long cpuMhz, long memoryMb, long diskMb, String reservedPorts) {
        public static final Reserved NONE = new Reserved(0, 0, 0, "");
    }

    public static ClientSettings defaults(Path dataDir) {
        return from(Map.of(), dataDir);
    }

    public static ClientSettings from(Map<String, ?> props, Path dataDir) {
        Path stateDir = path(props, "state.dir", dataDir.resolve("client"));
        Path allocDir = path(props, "alloc.dir", dataDir.resolve("alloc"));
        String pool = string(props, "node.pool", "");
        return new ClientSettings(stateDir, allocDir,
                string(props, "node.class", ""),
                pool.isBlank() ? "default" : pool,
                prefixed(props, "meta."),
                prefixed(props, "options."),
                string(props, "network.interface", ""),
                (int) number(props, "min.dynamic.port", DEFAULT_MIN_DYNAMIC_PORT),
                (int) number(props, "max.dynamic.port", DEFAULT_MAX_DYNAMIC_PORT),
                duration(props, "max.kill.timeout", DEFAULT_MAX_KILL_TIMEOUT),
                number(props, "cpu.total.compute", 0),
                number(props, "memory.total.mb", 0),
                number(props, "disk.total.mb", 0),
                new Reserved(number(props, "reserved.cpu", 0), number(props, "reserved.memory", 0),
                        number(props, "reserved.disk", 0), string(props, "reserved.reserved.ports", "")),
                (int) number(props, "node.max.allocs", 0),
                Boolean.parseBoolean(string(props, "default.ineligible", "false")),
                string(props, "preferred.address.family", ""),
                (int) number(props, "network.speed", 0),
                (int) number(props, "gc.max.allocs", DEFAULT_GC_MAX_ALLOCS),
                duration(props, "gc.interval", DEFAULT_GC_INTERVAL),
                ArtifactSandbox.of(Boolean.parseBoolean(string(props, "artifact.disable.filesystem.isolation",
                        "false")), strings(props, "artifact.filesystem.isolation.extra.paths")));
    }

    private static Path path(Map<String, ?> props, String key, Path fallback) {
        String value = string(props, key, "");
        return value.isBlank() ? fallback : Paths.get(value).toAbsolutePath().normalize();
    }

    private static String string(Map<String, ?> props, String key, String fallback) {
        Object value = props.get(key);
        return value == null ? fallback : String.valueOf(value);
    }

    private static long number(Map<String, ?> props, String key, long fallback) {
        Object value = props.get(key);
        if (value instanceof Number n) {
            return n.longValue();
        }
        if (value instanceof String s && !s.isBlank()) {
            return Long.parseLong(s.trim());
        }
        return fallback;
    }

    private static List<String> strings(Map<String, ?> props, String key) {
        Object value = props.get(key);
        if (value instanceof String[] array) {
            return List.of(array);
        }
        if (value instanceof java.util.Collection<?> c) {
            return c.stream().map(String::valueOf).toList();
        }
        return value == null ? List.of() : List.of(String.valueOf(value));
    }

    private static Duration duration(Map<String, ?> props, String key, Duration fallback) {
        Object value = props.get(key);
        if (value instanceof String s && !s.isBlank()) {
            return GoDuration.parse(s.trim());
        }
        if (value instanceof Number n) {
            return Duration.ofNanos(n.longValue());
        }
        return fallback;
    }

    /** Free-form maps keep their keys as written: {@code meta.my_rack} → {@code my_rack}. */
    private static Map<String, String> prefixed(Map<String, ?> props, String prefix) {
        Map<String, String> out = new TreeMap<>();
        props.forEach((k, v) -> {
            if (k.startsWith(prefix) && v != null) {
                out.put(k.substring(prefix.length()), String.valueOf(v));
            }
        });
        return out;
    }
}
