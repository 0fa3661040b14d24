package io.caravan.http;

/**
 * Written as {@code X-Nomad-Index}, {@code X-Nomad-KnownLeader}, {@code X-Nomad-LastContact} and, when there is a
 * further page, {@code X-Nomad-NextToken}.
 */
public record QueryMeta(long index, boolean knownLeader, long lastContactMillis, String nextToken) {
    /** An answer from this agent's own state, which is its own authority. */
    public static final QueryMeta LOCAL = new QueryMeta(0, true, 0, null);

    public static QueryMeta index(long index) {
        return new QueryMeta(index, true, 0, null);
    }
}
