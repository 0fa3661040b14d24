package io.caravan.api.model;

import java.util.List;

public record RequestedDevice(String name, Long count, List<Constraint> constraints, List<Affinity> affinities) {
    public RequestedDevice {
        constraints = Copy.list(constraints);
        affinities = Copy.list(affinities);
    }
}
