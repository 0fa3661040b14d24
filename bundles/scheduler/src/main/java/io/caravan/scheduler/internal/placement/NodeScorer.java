package io.caravan.scheduler.internal.placement;

/**
 * Scores nodes for a placement. {@link #bind} runs once per selection and may precompute what every node's score
 * needs; it returns null when the scorer has nothing to say for this request (it then abstains for every node).
 */
public interface NodeScorer {
    String name();

    Bound bind(PlacementRequest request, EvalContext ctx);

    /**
     * Whether a node's score depends only on the task group and that node with its proposed allocations (not on
     * the particular placement or on other nodes), so that it can be reused until the node's allocations change.
     */
    default boolean nodeLocal() {
        return false;
    }

    /** A scorer bound to one selection. */
    @FunctionalInterface
    interface Bound {
        /** A score, usually in [-1, 1]; {@link Double#NaN} to abstain for this node. */
        double score(RankedNode node);
    }

    /**
     * A bound scorer that can also score a node from its index in the proposed state alone (per-index arrays), so that
     * the pipeline's visit loop need not read the node or its ranking; both answers must agree.
     */
    interface IndexedBound extends Bound {
        double scoreAt(int nodeIndex);
    }
}
