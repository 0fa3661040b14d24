package io.caravan.api.model;

import com.fasterxml.jackson.annotation.JsonProperty;

public record VolumeMount(
        String volume,
        String destination,
        Boolean readOnly,
        String propagationMode,
        @JsonProperty("SELinuxLabel") String seLinuxLabel) {
}
