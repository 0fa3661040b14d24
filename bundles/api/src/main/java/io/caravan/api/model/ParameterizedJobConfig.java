package io.caravan.api.model;

import java.util.List;

public record ParameterizedJobConfig(String payload, List<String> metaRequired, List<String> metaOptional) {
    public static final String PAYLOAD_OPTIONAL = "optional";
    public static final String PAYLOAD_REQUIRED = "required";
    public static final String PAYLOAD_FORBIDDEN = "forbidden";

    public ParameterizedJobConfig {
        metaRequired = Copy.list(metaRequired);
        metaOptional = Copy.list(metaOptional);
    }
}
