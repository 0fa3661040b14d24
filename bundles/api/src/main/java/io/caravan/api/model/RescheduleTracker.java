package io.caravan.api.model;

import java.time.Duration;
import java.util.List;

/** The reschedule history carried by a replacement allocation. */
public record RescheduleTracker(List<Event> events) {
    public RescheduleTracker {
        events = Copy.list(events);
    }

    /** {@code RescheduleTime} is Unix nanoseconds. */
    public record Event(long rescheduleTime, String prevAllocId, String prevNodeId, @NanoDuration Duration delay) {
        public Event {
            delay = delay == null ? Duration.ZERO : delay;
        }
    }
}
