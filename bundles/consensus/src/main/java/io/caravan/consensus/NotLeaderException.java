package io.caravan.consensus;

import java.util.Optional;

/**
 * This server cannot append: either no leader is known ({@code No cluster leader}, Nomad's text, after a bounded wait),
 * or another server leads, in which case the caller forwards the request to {@link #leaderAddress()}.
 */
public final class NotLeaderException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Nomad's {@code structs.ErrNoLeader} text; clients match on it. */
    public static final String NO_LEADER = "No cluster leader";

    private final String leaderAddress;

    private NotLeaderException(String message, String leaderAddress) {
        super(message);
        this.leaderAddress = leaderAddress;
    }

    /** No leader was known when the wait ran out. */
    public static NotLeaderException noLeader() {
        return new NotLeaderException(NO_LEADER, null);
    }

    /** Another server leads; writes go there. */
    public static NotLeaderException leaderIs(String leaderAddress) {
        return new NotLeaderException("Not the cluster leader; the leader is " + leaderAddress, leaderAddress);
    }

    /** The leader's Raft address, when one is known. */
    public Optional<String> leaderAddress() {
        return Optional.ofNullable(leaderAddress);
    }
}
