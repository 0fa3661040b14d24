package io.caravan.consensus;

import java.util.List;
import java.util.Optional;
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
}
