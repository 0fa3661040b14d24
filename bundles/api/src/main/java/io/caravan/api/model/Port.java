package io.caravan.api.model;

/** A network port: {@code Value} is the static (reserved) or assigned (dynamic) host port; {@code To} -1 = same as host. */
public record Port(String label, int value, int to, String hostNetwork, boolean ignoreCollision) {
}
