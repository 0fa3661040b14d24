package io.caravan.api.model;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/** Why the scheduler placed (or could not place) an allocation: Nomad's {@code AllocMetric}. */
public record AllocMetric(
        int nodesEvaluated,
        int nodesFiltered,
        int nodesInPool,
        String nodePool,
        Map<String, Integer> nodesAvailable,
        Map<String, Integer> classFiltered,
        Map<String, Integer> constraintFiltered,
        int nodesExhausted,
        Map<String, Integer> classExhausted,
        Map<String, Integer> dimensionExhausted,
        List<String> quotaExhausted,
        Map<String, Resources> resourcesExhausted,
        List<NodeScoreMeta> scoreMetaData,
        @NanoDuration Duration allocationTime,
        int coalescedFailures) {

    public AllocMetric {
        allocationTime = allocationTime == null ? Duration.ZERO : allocationTime;
        nodesAvailable = Copy.map(nodesAvailable);
        classFiltered = Copy.map(classFiltered);
        constraintFiltered = Copy.map(constraintFiltered);
        classExhausted = Copy.map(classExhausted);
        dimensionExhausted = Copy.map(dimensionExhausted);
        quotaExhausted = Copy.list(quotaExhausted);
        resourcesExhausted = Copy.map(resourcesExhausted);
        scoreMetaData = Copy.list(scoreMetaData);
    }

    /** One node's scores, keyed by scorer ({@code binpack}, {@code job-anti-affinity}, {@code node-affinity}, …). */
    public record NodeScoreMeta(String nodeId, Map<String, Double> scores, double normScore) {
        public NodeScoreMeta {
            scores = Copy.map(scores);
        }
    }
}
