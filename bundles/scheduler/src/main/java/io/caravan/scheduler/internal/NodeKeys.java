package io.caravan.scheduler.internal;

/** Attribute and meta keys whose values are unique per node ({@code unique.hostname}, {@code a.unique.b}). */
public final class NodeKeys {
    private NodeKeys() {
    }

    /** Such keys are left out of computed classes, and constraints on them escape class caching. */
    public static boolean isUnique(String key) {
        return key.startsWith("unique.") || key.contains(".unique.");
    }
}
