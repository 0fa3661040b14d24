package io.caravan.scheduler.internal.reconcile;

import java.util.List;
import java.util.Map;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.Deployment;
import io.caravan.api.model.Evaluation;
import io.caravan.scheduler.DeploymentStatusUpdate;
import io.caravan.scheduler.PlanAnnotations.DesiredUpdates;

/**
 * What the reconciler wants done.
 *
 * @param placements       allocations to place (new ones and replacements)
 * @param stops            allocations to stop now, independent of any placement
 * @param inPlaceUpdates   existing allocations carrying the new job version
 * @param attributeUpdates existing allocations with a server-side field changed (the follow-up eval ID of a
 *                         failed allocation that will be rescheduled later)
 * @param followUpEvals    delayed evaluations ({@code WaitUntil}) for later rescheduling
 * @param deployment       a deployment to create (null: none)
 * @param deploymentUpdates status changes of existing deployments (cancelled, successful)
 * @param deploymentId     the deployment placements and in-place updates join (null: none)
 */
public record ReconcileResult(List<Placement> placements, List<AllocStop> stops, List<Allocation> inPlaceUpdates,
                              List<Allocation> attributeUpdates, List<Evaluation> followUpEvals,
                              Map<String, DesiredUpdates> desiredTgUpdates, Deployment deployment,
                              List<DeploymentStatusUpdate> deploymentUpdates, String deploymentId) {
    public ReconcileResult {
        placements = List.copyOf(placements);
        stops = List.copyOf(stops);
        inPlaceUpdates = List.copyOf(inPlaceUpdates);
        attributeUpdates = List.copyOf(attributeUpdates);
        followUpEvals = List.copyOf(followUpEvals);
        desiredTgUpdates = Map.copyOf(desiredTgUpdates);
        deploymentUpdates = List.copyOf(deploymentUpdates);
    }

    /** A result without deployments (system jobs). */
    public ReconcileResult(List<Placement> placements, List<AllocStop> stops, List<Allocation> inPlaceUpdates,
                           List<Allocation> attributeUpdates, List<Evaluation> followUpEvals,
                           Map<String, DesiredUpdates> desiredTgUpdates) {
        this(placements, stops, inPlaceUpdates, attributeUpdates, followUpEvals, desiredTgUpdates, null, List.of(),
                null);
    }
}
