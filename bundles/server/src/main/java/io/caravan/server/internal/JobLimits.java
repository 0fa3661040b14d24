package io.caravan.server.internal;

/**
 * What one job may ask for, checked at registration so that no job can make the servers build unbounded state.
 * The counts come from the server block (Nomad's {@code job_max_count}, {@code job_max_priority},
 * {@code job_default_priority}); the sizes are Caravan's fixed bounds (README "Limits"), far above what real jobs
 * use.
 *
 * @param maxCount the most allocations a job may ask for: each group's count, and their sum
 */
record JobLimits(int maxCount, int maxPriority, int defaultPriority) {
    /** Nomad's defaults. */
    static final JobLimits DEFAULT = new JobLimits(50_000, 100, 50);

    static final int MAX_TASK_GROUPS = 100;
    static final int MAX_TASKS = 100;
    /** constraint, affinity, spread, service, network, artifact, template, volume blocks at one level. */
    static final int MAX_BLOCKS = 100;
    /** meta, env and port entries at one level. */
    static final int MAX_ENTRIES = 1000;
    static final long MAX_CPU_MHZ = 10_000_000;
    static final long MAX_CORES = 4096;
    static final long MAX_MEMORY_MB = 16L * 1024 * 1024;   // 16 TiB
    static final long MAX_DISK_MB = 1024L * 1024 * 1024;   // 1 PiB
    static final long MIN_MEMORY_MB = 10;

    static JobLimits of(ServerSchedulingConfig config) {
        return new JobLimits(config.job_max_count(), config.job_max_priority(), config.job_default_priority());
    }
}
