package io.caravan.api.model;

import java.util.List;

/** {@code spread} block; the wire name of the target list is the singular {@code SpreadTarget}. */
public record Spread(String attribute, Integer weight, List<Target> spreadTarget) {
    public Spread {
        spreadTarget = Copy.list(spreadTarget);
    }

    public record Target(String value, Integer percent) {
    }
}
