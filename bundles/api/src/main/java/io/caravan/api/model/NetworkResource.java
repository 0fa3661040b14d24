package io.caravan.api.model;

import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.List;
import java.util.Map;

/** A {@code network} block (group level) or an allocated network. {@code DNS} and {@code CNI} are kept raw. */
public record NetworkResource(
        String mode,
        String device,
        @JsonProperty("CIDR") String cidr,
        String ip,
        String hostname,
        int mBits,
        Map<String, Object> dns,
        List<Port> reservedPorts,
        List<Port> dynamicPorts,
        Map<String, Object> cni) {
    public static final String MODE_HOST = "host";
    public static final String MODE_BRIDGE = "bridge";
    public static final String MODE_NONE = "none";

    public NetworkResource {
        dns = Copy.rawOrNull(dns);
        reservedPorts = Copy.list(reservedPorts);
        dynamicPorts = Copy.list(dynamicPorts);
        cni = Copy.rawOrNull(cni);
    }
}
