package io.caravan.api.acl;

import org.osgi.annotation.versioning.ProviderType;

/**
 * What a caller may do, compiled from the policies of its token (and roles): Nomad's namespace capabilities with glob
 * namespaces (the most specific match wins, {@code deny} beats everything), coarse scopes, host volumes and variables.
 * Implementations are immutable and safe to share between threads.
 */
@ProviderType
public interface Acl {

    /** Everything is allowed: a management token, or ACLs turned off. */
    Acl MANAGEMENT = Fixed.ALL;

    /** Nothing is allowed (no policies). */
    Acl NONE = Fixed.NOTHING;

    boolean isManagement();

    /** A namespace capability ({@link Capability}) in one namespace. */
    boolean allowNamespace(String namespace, String capability);

    /**
     * Whether the capability is granted in at least one namespace: lets a list over all namespaces ({@code
     * namespace=*}) through, to be filtered row by row with {@link #allowNamespace}.
     */
    boolean allowAnyNamespace(String capability);

    /** A coarse scope at {@code access} ({@link Access#READ} or {@link Access#WRITE}; {@link Access#LIST} for plugins). */
    boolean allow(Scope scope, Access access);

    /** A host-volume capability ({@code mount-readonly}, {@code mount-readwrite}, …) on the named volume. */
    boolean allowHostVolume(String name, String capability);

    /** A variable capability ({@code read}, {@code write}, {@code list}, {@code destroy}) on a path in a namespace. */
    boolean allowVariable(String namespace, String path, String capability);

    /**
     * A capability ({@code read}, {@code write}, {@code delete}) on node pool {@code pool} (Nomad's {@code node_pool}
     * rules). Only management by default: an authorizer that knows node pool rules says more.
     */
    default boolean allowNodePool(String pool, String capability) {
        return isManagement();
    }

    /** Whether some node pool rule grants {@code read}: what searching node pools takes (Nomad's). */
    default boolean allowNodePoolSearch() {
        return isManagement();
    }

    /**
     * Whether any {@code variables} path rule of {@code namespace} ({@code *}: of any namespace) grants something:
     * Nomad's loose check before a variables list or lookup, whose rows or path are then checked one by one.
     */
    default boolean allowVariableSearch(String namespace) {
        return isManagement();
    }

    /** The two ACLs that need no policies. */
    enum Fixed implements Acl {
        ALL(true), NOTHING(false);

        private final boolean allowed;

        Fixed(boolean allowed) {
            this.allowed = allowed;
        }

        @Override
        public boolean isManagement() {
            return allowed;
        }

        @Override
        public boolean allowNamespace(String namespace, String capability) {
            return allowed;
        }

        @Override
        public boolean allowAnyNamespace(String capability) {
            return allowed;
        }

        @Override
        public boolean allow(Scope scope, Access access) {
            return allowed;
        }

        @Override
        public boolean allowHostVolume(String name, String capability) {
            return allowed;
        }

        @Override
        public boolean allowVariable(String namespace, String path, String capability) {
            return allowed;
        }

        @Override
        public String toString() {
            return allowed ? "management" : "none";
        }
    }
}
