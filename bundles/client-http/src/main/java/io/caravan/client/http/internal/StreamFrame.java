package io.caravan.client.http.internal;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Nomad's {@code StreamFrame}: {@code Data} is base64, {@code Offset} the position in {@code File} after the data,
 * {@code FileEvent} {@code "file truncated"} or {@code "file deleted"}. Every field is left out when empty (Go's
 * {@code omitempty}), so a heartbeat is {@code {}}.
 */
record StreamFrame(
        @JsonProperty("Offset") @JsonInclude(JsonInclude.Include.NON_DEFAULT) long offset,
        @JsonProperty("Data") @JsonInclude(JsonInclude.Include.NON_EMPTY) byte[] data,
        @JsonProperty("File") @JsonInclude(JsonInclude.Include.NON_EMPTY) String file,
        @JsonProperty("FileEvent") @JsonInclude(JsonInclude.Include.NON_EMPTY) String fileEvent) {

    static final String TRUNCATED = "file truncated";
    static final String DELETED = "file deleted";
}
