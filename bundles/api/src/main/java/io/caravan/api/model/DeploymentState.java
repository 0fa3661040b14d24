package io.caravan.api.model;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** A task group's progress within a deployment. */
public record DeploymentState(
        boolean autoRevert,
        boolean autoPromote,
        @NanoDuration Duration progressDeadline,
        @GoTime Instant requireProgressBy,
        boolean promoted,
        List<String> placedCanaries,
        int desiredCanaries,
        int desiredTotal,
        int placedAllocs,
        int healthyAllocs,
        int unhealthyAllocs) {
    public DeploymentState {
        progressDeadline = progressDeadline == null ? Duration.ZERO : progressDeadline;
        placedCanaries = Copy.list(placedCanaries);
    }
}
