package io.caravan.api.model;

/** Allocation counts of one task group, by client status. */
public record TaskGroupSummary(int queued, int complete, int failed, int running, int starting, int lost, int unknown) {
}
