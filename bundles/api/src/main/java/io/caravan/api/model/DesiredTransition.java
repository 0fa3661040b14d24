package io.caravan.api.model;

/** Server-requested transitions of an allocation; all unset by default. */
public record DesiredTransition(
        Boolean migrate,
        Boolean reschedule,
        Boolean forceReschedule,
        Boolean noShutdownDelay,
        Boolean migrateDisablePlacement) {
}
