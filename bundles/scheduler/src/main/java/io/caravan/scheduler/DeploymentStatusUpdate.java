package io.caravan.scheduler;

/**
 * Nomad's {@code DeploymentStatusUpdate}: a deployment's new status and description, carried by a plan (the
 * reconciler cancels a deployment of an older job version, or marks one successful).
 */
public record DeploymentStatusUpdate(String deploymentId, String status, String statusDescription) {
}
