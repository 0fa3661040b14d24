package io.caravan.api.model;

import com.fasterxml.jackson.annotation.JsonProperty;

import java.time.Duration;
import java.util.List;
import java.util.Map;

public record ServiceCheck(
        String name,
        String type,
        String command,
        List<String> args,
        String path,
        String protocol,
        String portLabel,
        boolean expose,
        String addressMode,
        String advertise,
        @NanoDuration Duration interval,
        @NanoDuration Duration timeout,
        String initialStatus,
        String notes,
        String tlsServerName,
        boolean tlsSkipVerify,
        Map<String, List<String>> header,
        String method,
        Service.CheckRestart checkRestart,
        @JsonProperty("GRPCService") String grpcService,
        @JsonProperty("GRPCUseTLS") boolean grpcUseTls,
        String taskName,
        int successBeforePassing,
        int failuresBeforeCritical,
        int failuresBeforeWarning,
        String body,
        String onUpdate) {
    public static final String TYPE_HTTP = "http";
    public static final String TYPE_TCP = "tcp";
    public static final String TYPE_GRPC = "grpc";
    public static final String TYPE_SCRIPT = "script";

    public ServiceCheck {
        interval = interval == null ? Duration.ZERO : interval;
        timeout = timeout == null ? Duration.ZERO : timeout;
        args = Copy.list(args);
        header = Copy.multimap(header);
    }
}
