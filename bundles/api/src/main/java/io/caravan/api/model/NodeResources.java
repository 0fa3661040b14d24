package io.caravan.api.model;

import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.List;
import java.util.Map;

/**
 * A node's total resources. Nomad spells the CPU parts {@code Cpu}, {@code CpuShares}, {@code TotalCpuCores}.
 * {@code Processors} (NUMA topology), {@code Devices} and {@code NodeNetworks} are kept raw.
 */
public record NodeResources(
        @JsonProperty("Cpu") Cpu cpu,
        Map<String, Object> processors,
        Memory memory,
        Disk disk,
        List<NetworkResource> networks,
        List<Map<String, Object>> nodeNetworks,
        List<Map<String, Object>> devices,
        int minDynamicPort,
        int maxDynamicPort) {

    @SuppressWarnings("unchecked")
    public NodeResources {
        processors = Copy.rawOrNull(processors);
        networks = Copy.list(networks);
        nodeNetworks = nodeNetworks == null ? List.of() : (List<Map<String, Object>>) Copy.freeze(nodeNetworks);
        devices = devices == null ? List.of() : (List<Map<String, Object>>) Copy.freeze(devices);
    }

    public record Cpu(
            @JsonProperty("CpuShares") long cpuShares,
            @JsonProperty("TotalCpuCores") int totalCpuCores,
            @JsonProperty("ReservableCpuCores") List<Integer> reservableCpuCores) {
        public Cpu {
            reservableCpuCores = Copy.list(reservableCpuCores);
        }
    }

    public record Memory(long memoryMb) {
    }

    public record Disk(long diskMb) {
    }
}
