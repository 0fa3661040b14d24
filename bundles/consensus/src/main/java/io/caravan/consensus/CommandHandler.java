package io.caravan.consensus;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Applies committed commands to the server's state. Exactly one per server (the server bundle registers it); until one
 * exists, the Raft server does not start. Calls never overlap (entries are applied one at a time, in log order), so the
 * handler is the single writer of its state.
 */
@ConsumerType
public interface CommandHandler {

    /**
     * Applies one committed command. Must be deterministic: every replica applies the same entries with the same
     * arguments and must reach the same state, so read no clock and draw no randomness here; use {@code index} and
     * {@code timestampMillis} (stamped by the leader when it appended the entry, identical on every replica and on
     * replay). Each call has an index of its own, greater than the last, unless the handler is a
     * {@link BatchingCommandHandler}.
     *
     * <p>An expected rejection (validation, conflict) is a result like any other: encode it in the returned bytes. So
     * is an entry that does not decode or fails {@link #validate}: reject it the same way on every replica, never throw.
     * An exception is a bug in the applier of a valid command: the server logs it with the index and stops its Raft
     * server, because skipping the entry would let replicas diverge. The entry stays in the log and is retried when the
     * server starts again, unless an operator lists its index in the Raft directory's {@code skip-entries} file
     * ({@code caravan operator raft skip-entry}) on every server.
     *
     * @return the result handed back to the submitter ({@link Applied#result()}); never null (use an empty array)
     */
    byte[] apply(long index, long timestampMillis, byte[] command);

    /**
     * Checks a command before the leader appends it, so that nothing reaches the log that this server's own code would
     * not have built: called on the leader for every command of every entry, whoever submitted it. Must be quick and
     * deterministic (the same bytes are checked again by {@link #apply} on every replica). The default accepts all.
     *
     * @throws IllegalArgumentException with the reason, to refuse the command: it is not appended, and the submitter's
     *     stage fails with that exception
     */
    default void validate(byte[] command) {
    }

    /**
     * Writes the whole state as of the last applied entry. Called on the apply thread between two entries, so the state
     * cannot move underneath; take the immutable root and stream it. Throw on failure: a snapshot that failed is never
     * recorded.
     */
    void snapshot(OutputStream out) throws IOException;

    /** A state captured on the apply thread, written later on another one. */
    @FunctionalInterface
    interface CapturedState {
        void writeTo(OutputStream out) throws IOException;
    }

    /**
     * Captures the whole state as of the last applied entry, for a snapshot written on another thread while entries
     * keep being applied (as Nomad's FSM snapshot and its persist): writing a large state took the apply thread, and so
     * every write, for seconds. Called on the apply thread between two entries. A handler whose state is an immutable
     * root returns a writer of that root; the default writes {@link #snapshot} into memory here.
     */
    default CapturedState captureState() throws IOException {
        java.io.ByteArrayOutputStream buffer = new java.io.ByteArrayOutputStream();
        snapshot(buffer);
        byte[] bytes = buffer.toByteArray();
        return out -> out.write(bytes);
    }

    /**
     * Replaces the whole state with a snapshot written by {@link #snapshot}, taken at log index {@code index}. Called
     * once when the Raft server starts, before the log after {@code index} is replayed through {@link #apply}, and
     * again whenever a snapshot from the leader replaces the state. With no snapshot yet, it is called with index 0 and
     * an empty stream: reset to the empty state (a handler may outlive one Raft server and see the next one replay).
     */
    void restore(long index, InputStream in) throws IOException;
}
