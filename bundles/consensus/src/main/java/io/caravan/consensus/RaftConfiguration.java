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
}
