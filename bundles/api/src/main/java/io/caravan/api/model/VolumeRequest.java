package io.caravan.api.model;

import java.util.Map;

/** Group {@code volume "<name>"} block. */
public record VolumeRequest(
        String name,
        String type,
        String source,
        boolean readOnly,
        boolean sticky,
        String accessMode,
        String attachmentMode,
        Map<String, Object> mountOptions,
        boolean perAlloc) {
    public static final String TYPE_HOST = "host";
    public static final String TYPE_CSI = "csi";

    public VolumeRequest {
        mountOptions = Copy.rawOrNull(mountOptions);
    }
}
