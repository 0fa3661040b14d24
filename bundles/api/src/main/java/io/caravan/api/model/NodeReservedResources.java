package io.caravan.api.model;

import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.List;

/** What a node keeps back from scheduling. {@code Networks.ReservedHostPorts} is a port-range string ("22,80,8000-8080"). */
public record NodeReservedResources(
        @JsonProperty("Cpu") Cpu cpu,
        NodeResources.Memory memory,
        NodeResources.Disk disk,
        Networks networks) {

    public record Cpu(@JsonProperty("CpuShares") long cpuShares, @JsonProperty("ReservedCpuCores") List<Integer> reservedCpuCores) {
        public Cpu {
            reservedCpuCores = Copy.list(reservedCpuCores);
        }
    }

    public record Networks(String reservedHostPorts) {
    }
}
