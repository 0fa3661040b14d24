package io.caravan.scheduler.internal.reconcile;

import io.caravan.scheduler.PlanAnnotations.DesiredUpdates;

/** A task group's running tally of Nomad's {@code DesiredUpdates}. */
final class GroupUpdates {
    long ignore;
    long place;
    long migrate;
    long stop;
    long inPlaceUpdate;
    long destructiveUpdate;
    long rescheduleNow;
    long rescheduleLater;
    long disconnect;
    long reconnect;
    long canary;

    DesiredUpdates toDesiredUpdates() {
        return new DesiredUpdates(ignore, place, migrate, stop, inPlaceUpdate, destructiveUpdate, canary, 0, reconnect,
                rescheduleNow, rescheduleLater, disconnect);
    }
}
