package io.caravan.scheduler.internal.reconcile;

import io.caravan.api.model.Allocation;

/**
 * An allocation to stop, why, and the client status the server sets with it ({@code lost} for allocations on
 * down nodes; null leaves the client status alone).
 */
public record AllocStop(Allocation alloc, String description, String clientStatus) {
    /** Nomad's {@code allocNotNeeded}. */
    public static final String NOT_NEEDED = "alloc not needed due to job update";
    public static final String MIGRATING = "alloc is being migrated";
    public static final String UPDATING = "alloc is being updated due to job update";
    public static final String LOST = "alloc is lost since its node is down";
    public static final String RESCHEDULED = "alloc was rescheduled because it failed";
    public static final String NODE_TAINTED = "alloc not needed as node is tainted";
    /** The other of a reconnected allocation and its replacement was kept ({@code disconnect.reconcile}). */
    public static final String RECONNECT_LOST = "alloc not needed due to disconnected client reconnect";

    public static AllocStop notNeeded(Allocation alloc) {
        return new AllocStop(alloc, NOT_NEEDED, null);
    }

    public static AllocStop lost(Allocation alloc) {
        return new AllocStop(alloc, LOST, Allocation.CLIENT_LOST);
    }
}
