package io.caravan.server.internal;

import io.caravan.scheduler.SchedulerConfiguration;

/**
 * Nomad's operator scheduler configuration as {@code /v1/operator/scheduler/configuration} reads and writes it, and
 * as the Raft log stores it; {@link #forScheduler()} is the part placement reads.
 */
record SchedulerConfig(String schedulerAlgorithm, PreemptionConfig preemptionConfig,
                       boolean memoryOversubscriptionEnabled, boolean rejectJobRegistration, boolean pauseEvalBroker,
                       long createIndex, long modifyIndex) {

    /** The one row of its table. */
    static final String KEY = "scheduler";

    /** Nomad's defaults: bin-packing, system jobs may preempt, nothing else. */
    static final SchedulerConfig DEFAULT = new SchedulerConfig(SchedulerConfiguration.BINPACK,
            new PreemptionConfig(true, false, false, false), false, false, false, 0, 0);

    SchedulerConfig {
        schedulerAlgorithm = schedulerAlgorithm == null || schedulerAlgorithm.isEmpty()
                ? SchedulerConfiguration.BINPACK : schedulerAlgorithm;
        preemptionConfig = preemptionConfig == null ? new PreemptionConfig(true, false, false, false)
                : preemptionConfig;
    }

    record PreemptionConfig(boolean systemSchedulerEnabled, boolean sysBatchSchedulerEnabled,
                            boolean batchSchedulerEnabled, boolean serviceSchedulerEnabled) {}

    SchedulerConfig withIndexes(long createIndex, long modifyIndex) {
        return new SchedulerConfig(schedulerAlgorithm, preemptionConfig, memoryOversubscriptionEnabled,
                rejectJobRegistration, pauseEvalBroker, createIndex, modifyIndex);
    }

    SchedulerConfiguration forScheduler() {
        return new SchedulerConfiguration(schedulerAlgorithm, memoryOversubscriptionEnabled,
                preemptionConfig.systemSchedulerEnabled(), preemptionConfig.batchSchedulerEnabled(),
                preemptionConfig.serviceSchedulerEnabled(), preemptionConfig.sysBatchSchedulerEnabled());
    }
}
