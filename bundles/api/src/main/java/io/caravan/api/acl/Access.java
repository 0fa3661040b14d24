package io.caravan.api.acl;

/**
 * A coarse policy on a scope without namespaces ({@code node}, {@code agent}, {@code operator}, {@code quota},
 * {@code plugin}), ordered: each level grants the ones before it except {@link #DENY}, which grants nothing and
 * beats every other policy that matches.
 */
public enum Access {
    NONE, LIST, READ, WRITE, DENY;

    /** Whether holding this level grants {@code wanted}. */
    public boolean grants(Access wanted) {
        return this != DENY && wanted != DENY && wanted != NONE && compareTo(wanted) >= 0;
    }
}
