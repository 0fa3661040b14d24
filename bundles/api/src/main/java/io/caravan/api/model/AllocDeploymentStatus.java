package io.caravan.api.model;

import java.time.Instant;

/** An allocation's health within its deployment; {@code Healthy} is null until it is known. */
public record AllocDeploymentStatus(Boolean healthy, @GoTime Instant timestamp, boolean canary, long modifyIndex) {
}
