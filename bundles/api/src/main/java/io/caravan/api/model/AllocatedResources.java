package io.caravan.api.model;

import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.List;
import java.util.Map;

/**
 * What an allocation was given. Nomad spells these {@code Cpu}/{@code CpuShares} (not {@code CPU}); devices are kept raw.
 */
public record AllocatedResources(
        Map<String, TaskResources> tasks,
        Map<String, TaskLifecycle> taskLifecycles,
        Shared shared) {

    public AllocatedResources {
        tasks = Copy.map(tasks);
        taskLifecycles = Copy.map(taskLifecycles);
    }

    public record TaskResources(
            @JsonProperty("Cpu") Cpu cpu,
            Memory memory,
            List<NetworkResource> networks,
            List<Map<String, Object>> devices) {
        @SuppressWarnings("unchecked")
        public TaskResources {
            networks = Copy.list(networks);
            devices = devices == null ? List.of() : (List<Map<String, Object>>) Copy.freeze(devices);
        }
    }

    public record Cpu(@JsonProperty("CpuShares") long cpuShares, List<Integer> reservedCores) {
        public Cpu {
            reservedCores = Copy.list(reservedCores);
        }
    }

    public record Memory(long memoryMb, long memoryMaxMb) {
    }

    public record Shared(List<NetworkResource> networks, long diskMb, List<AllocatedPort> ports) {
        public Shared {
            networks = Copy.list(networks);
            ports = Copy.list(ports);
        }
    }

    public record AllocatedPort(String label, int value, int to, String hostIp) {
    }
}
