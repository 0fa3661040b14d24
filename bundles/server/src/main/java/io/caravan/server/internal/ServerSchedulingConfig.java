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

    /** The most allocations one job may ask for (each group's count and their sum). */
    int job_max_count() default 50_000;

    int job_max_priority() default 100;

    /** The priority of a job that sets none. */
    int job_default_priority() default 50;

    /** Caravan keeps no job sources; set only to warn that it has no effect. */
    String job_max_source_size() default "";

    /** Read by garbage collection ({@link CoreGc.Config}), which trims older versions. */
    int job_tracked_versions() default 0;
}
