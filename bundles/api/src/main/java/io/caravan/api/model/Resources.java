package io.caravan.api.model;

import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.List;
import java.util.Map;

/** Task {@code resources}. {@code CPU} is MHz; {@code DiskMB} and {@code IOPS} are legacy. */
public record Resources(
        Integer cpu,
        Integer cores,
        Integer memoryMb,
        Integer memoryMaxMb,
        Integer diskMb,
        @JsonProperty("IOPS") Integer iops,
        List<NetworkResource> networks,
        List<RequestedDevice> devices,
        @JsonProperty("NUMA") Map<String, Object> numa,
        Integer secretsMb) {
    public Resources {
        networks = Copy.list(networks);
        devices = Copy.list(devices);
        numa = Copy.rawOrNull(numa);
    }
}
