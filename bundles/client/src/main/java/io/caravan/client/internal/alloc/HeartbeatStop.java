package io.caravan.client.internal.alloc;

import java.time.Duration;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.TaskGroup;

/**
 * Nomad's heartbeat stop: an allocation whose group sets {@code disconnect.stop_on_client_after} (the older
 * {@code stop_after_client_disconnect} is folded into it when the job is registered) is stopped by the client
 * itself once the node has gone that long without reaching a server — the servers will have replaced it by then, and
 * two copies must not run.
 */
public final class HeartbeatStop {
    private HeartbeatStop() {
    }

    /** The group's window, or null when it has none. */
    public static Duration window(Allocation alloc) {
        TaskGroup group = alloc.lookupTaskGroup();
        if (group == null) {
            return null;
        }
        Duration window = group.disconnect() != null && group.disconnect().stopOnClientAfter() != null
                ? group.disconnect().stopOnClientAfter() : group.stopAfterClientDisconnect();
        return window == null || window.isZero() || window.isNegative() ? null : window;
    }

    /** Whether the allocation must stop now, {@code sinceContact} after the node last reached a server. */
    public static boolean due(Allocation alloc, Duration sinceContact) {
        Duration window = window(alloc);
        return window != null && !alloc.terminal() && sinceContact.compareTo(window) > 0;
    }
}
