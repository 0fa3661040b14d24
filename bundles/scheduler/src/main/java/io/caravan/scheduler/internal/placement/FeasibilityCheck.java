package io.caravan.scheduler.internal.placement;

import io.caravan.api.model.Node;

/** A stateless test of whether a node can take a placement. */
public interface FeasibilityCheck {
    String name();

    CheckScope scope();

    Verdict test(PlacementRequest request, Node node, EvalContext ctx);

    /** Whether the check has anything to test for this request; checks that do not apply are skipped. */
    default boolean appliesTo(PlacementRequest request) {
        return true;
    }

    /**
     * Whether this check looks at values outside the computed class (unique attributes), so that passing nodes
     * must not be cached per class (Nomad's "escaped" computed class).
     */
    default boolean escapes(PlacementRequest request) {
        return false;
    }
}
