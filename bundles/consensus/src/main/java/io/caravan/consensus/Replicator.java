package io.caravan.consensus;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The Raft log of this server. Registered only while this server is part of a group that has a leader and has
 * replayed its log, so a consumer that gets one can write.
 */
@ProviderType
public interface Replicator {

    /**
     * The largest command the log takes: well below what one Raft append carries (Ratis' appender buffer), so that one
     * entry can always reach the followers; a larger one would stall replication and force elections.
     */
    int MAX_COMMAND_BYTES = 4 * 1024 * 1024;

    /**
     * Appends a command through Raft. The stage completes once the command is committed and applied on this server,
     * with the {@link CommandHandler}'s result. It fails with {@link NotLeaderException} when no leader is elected
     * within the server's bounded wait ({@code No cluster leader}) or another server leads, and with an
     * {@link IllegalStateException} when the handler threw (the server then stops: see {@link CommandHandler#apply}),
     * and with {@link IllegalArgumentException} when the leader refused the command ({@link CommandHandler#validate}) or
     * it is larger than {@link #MAX_COMMAND_BYTES}; a refused command is not appended.
     */
    CompletionStage<Applied> submit(byte[] command);

    /** Whether this server is the leader and ready to append. */
    boolean isLeader();

    /** The leader's Raft address ({@code host:port}), if one is known. */
    Optional<String> leaderAddress();

    /** The index of the last entry applied on this server (0 before any). */
    long lastAppliedIndex();

    /** Raft addresses ({@code host:port}) of the group's voting members, this server included. */
    List<String> peers();

    /**
     * Completes once this server has applied every entry the leader had committed when the call was made, so that a
     * read of this server's state afterwards sees every write acknowledged before it (Raft's read index: the leader
     * first makes sure it still leads, by its lease or a heartbeat round, then names its commit index). Fails with
     * {@link NotLeaderException} when no leader answers within the server's bounded wait. The default suits a log of
     * one server that applies what it appends.
     *
     * @since 1.5
     */
    default CompletionStage<Void> awaitConsistentRead() {
        return isLeader() ? CompletableFuture.completedFuture(null)
                : CompletableFuture.failedFuture(NotLeaderException.noLeader());
    }

    /**
     * Milliseconds since this server last heard from the leader (Nomad's {@code X-Nomad-LastContact}), also once it has
     * lost the leader: 0 on the leader, and 0 by default.
     *
     * @since 1.5
     */
    default long lastLeaderContactMillis() {
        return 0;
    }
}
