package io.caravan.scheduler;

/**
 * Nomad's operator scheduler configuration ({@code /v1/operator/scheduler/configuration}) as far as placement
 * reads it.
 */
public record SchedulerConfiguration(String schedulerAlgorithm, boolean memoryOversubscriptionEnabled,
                                     boolean preemptSystem, boolean preemptBatch, boolean preemptService,
                                     boolean preemptSysBatch) {
    public static final String BINPACK = "binpack";
    public static final String SPREAD = "spread";

    public static final SchedulerConfiguration DEFAULT =
            new SchedulerConfiguration(BINPACK, false, true, false, false, false);
}
