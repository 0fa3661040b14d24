package io.caravan.server.internal;

/**
 * The server block's scheduling and heartbeat settings as the agent writes them to PID {@code io.caravan.server}
 * (Nomad's names, {@code _} → {@code .}; durations are Go duration strings). Defaults are Nomad's.
 */
@interface ServerSchedulingConfig {
    /** 0: one worker per core. */
    int num_schedulers() default 0;

    String[] enabled_schedulers() default {"service", "batch", "system", "sysbatch", "_core"};

    String heartbeat_grace() default "10s";

    String min_heartbeat_ttl() default "10s";

    double max_heartbeats_per_second() default 50.0;

    String failover_heartbeat_ttl() default "5m";
}
