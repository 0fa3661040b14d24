package io.caravan.scheduler.internal.placement;

import java.util.function.Supplier;

import io.caravan.api.model.AllocatedResources;
import io.caravan.api.model.Node;

/** A feasible node that fits the placement, with what it would be given and its scores. */
public final class RankedNode {
    private final Node node;
    private final int index;
    private final NodeUsage usage;
    private Supplier<AllocatedResources> resources;
    private AllocatedResources built;
    /** CPU (MHz) and memory (MB) in use after the placement, and what the node offers. */
    private double cpuUsed;
    private double memoryUsed;
    private double cpuCapacity;
    private double memoryCapacity;
    private double[] scores;
    private double finalScore;
    private String exhausted;

    RankedNode(Node node, int index, NodeUsage usage) {
        this.node = node;
        this.index = index;
        this.usage = usage;
    }

    public Node node() {
        return node;
    }

    /** The node's index in the proposed state (-1 if the snapshot does not list it). */
    public int index() {
        return index;
    }

    public NodeUsage usage() {
        return usage;
    }

    /** What the placement would be given on this node (built on first call). */
    public AllocatedResources resources() {
        if (built == null && resources != null) {
            built = resources.get();
        }
        return built;
    }

    void fitted(Supplier<AllocatedResources> resources, double cpuUsed, double cpuCapacity, double memoryUsed,
                double memoryCapacity) {
        this.resources = resources;
        this.cpuUsed = cpuUsed;
        this.cpuCapacity = cpuCapacity;
        this.memoryUsed = memoryUsed;
        this.memoryCapacity = memoryCapacity;
    }

    /** Free share of CPU after the placement, in [0, 1]. */
    public double freeCpuFraction() {
        return cpuCapacity <= 0 ? 0 : 1 - cpuUsed / cpuCapacity;
    }

    public double freeMemoryFraction() {
        return memoryCapacity <= 0 ? 0 : 1 - memoryUsed / memoryCapacity;
    }

    /** Per scorer, in pipeline order; NaN where the scorer abstained. */
    public double[] scores() {
        return scores;
    }

    /** The score array, created on first use; node-local entries survive between placements. */
    double[] scoreSlots(int scorers) {
        if (scores == null) {
            scores = new double[scorers];
        }
        return scores;
    }

    void assignFinalScore(double finalScore) {
        this.finalScore = finalScore;
    }

    /** The dimension the placement did not fit in on this node, or null when it fits. */
    public String exhausted() {
        return exhausted;
    }

    void exhausted(String dimension) {
        this.exhausted = dimension;
    }

    public double finalScore() {
        return finalScore;
    }
}
