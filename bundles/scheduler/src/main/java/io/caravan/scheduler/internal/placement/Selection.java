package io.caravan.scheduler.internal.placement;

import io.caravan.api.model.AllocMetric;

/** The outcome of one selection: the chosen node (null when none fits) and the metrics behind the choice. */
public record Selection(RankedNode chosen, AllocMetric metric) {
    public boolean found() {
        return chosen != null;
    }
}
