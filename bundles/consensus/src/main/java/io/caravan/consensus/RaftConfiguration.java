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

    /** One voting member: its id (the server's node ID), Raft address, and whether it leads. */
    record Server(String id, String address, boolean leader, boolean voter) {}

    List<Server> servers();

    /**
     * Removes a member, named by id or Raft address, from the group. Only the leader can: elsewhere the stage fails
     * with {@link NotLeaderException}; an unknown member fails with {@link IllegalArgumentException}.
     */
    CompletionStage<Void> removePeer(String idOrAddress);
}
