package io.caravan.consensus.internal;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the Raft server asks of membership, inside this bundle: a service so that the part that needs the membership
 * bundle ({@link GossipMembership}) comes and goes with it, and Raft runs on static peers without it.
 */
interface ClusterMembership {

    /** The first group of a server without Raft state, or empty to keep waiting (see {@link RaftMembers}). */
    Optional<List<Peer>> initialGroup(Peer self, int expect);

    /** How many servers of the region membership shows, for the waiting message. */
    int visibleServers();

    /** The leader's next configuration, or empty when the group matches membership. */
    Optional<List<Peer>> nextConfiguration(Peer self, List<Peer> current, Map<String, Duration> failedFor);

    /** Node IDs of the region's servers that membership shows failed now. */
    List<String> failedServers();

    /** Tells the others this server's Raft runs. */
    void announceRunning();

    /** The RPC address of the server with this node ID (its Raft peer id), when membership knows it. */
    Optional<String> rpcAddressOf(String nodeId);

    /** Leaves membership (the leader then removes this server from the group). */
    void leave();
}
