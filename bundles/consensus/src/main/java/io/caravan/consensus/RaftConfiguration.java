package io.caravan.consensus;

import java.util.List;
import java.util.concurrent.CompletionStage;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The Raft group as operators see it: Nomad's {@code operator raft list-peers} and {@code remove-peer}. Registered
 * with the {@link Replicator}.
 */
@ProviderType
public interface RaftConfiguration {

    /**
     * One voting member: its id (the server's node ID), Raft address, RPC address, and whether it leads. The RPC
     * address is how the API and clients name a server (Nomad's Raft shares its RPC port; ours has a port of its
     * own); it is empty while no gossip member vouches for the id, and the Raft address never stands in for it.
     */
    record Server(String id, String address, String rpcAddress, boolean leader, boolean voter) {
        public Server {
            rpcAddress = rpcAddress == null ? "" : rpcAddress;
        }

        /** A member whose RPC address is not known. */
        public Server(String id, String address, boolean leader, boolean voter) {
            this(id, address, "", leader, voter);
        }
    }

    List<Server> servers();

    /**
     * Removes a member, named by id or Raft address, from the group. Only the leader can: elsewhere the stage fails
     * with {@link NotLeaderException}; an unknown member fails with {@link IllegalArgumentException}.
     */
    CompletionStage<Void> removePeer(String idOrAddress);

    /**
     * What the leader knows of one member's replication (Nomad's autopilot reads the same from its Raft).
     *
     * @param id the member's id
     * @param lastContactMillis since the leader last heard from it (0 for the leader itself)
     * @param matchIndex the last log index known to be on it (the leader's own last index for itself)
     * @since 1.5
     */
    record Progress(String id, long lastContactMillis, long matchIndex) {}

    /** On the leader: each member's {@link Progress}; elsewhere empty. @since 1.5 */
    default List<Progress> progress() {
        return List.of();
    }

    /** The current Raft term as this server knows it (0 before it runs). @since 1.5 */
    default long term() {
        return 0;
    }

    /**
     * Autopilot's dead-server cleanup, which the leader applies while it follows membership: with {@code enabled}
     * false, voters whose servers failed stay in the group until an operator removes them (servers that left are
     * removed either way); the leader never shrinks the group below {@code minQuorum} voters by removing failed ones.
     * Every server is told (the setting lives in the replicated state), so whichever leads next applies it.
     *
     * @since 1.5
     */
    default void deadServerCleanup(boolean enabled, int minQuorum) {
    }
}
