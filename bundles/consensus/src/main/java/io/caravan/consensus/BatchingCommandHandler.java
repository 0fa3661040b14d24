package io.caravan.consensus;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * A {@link CommandHandler} that accepts several commands at one log index. Implementing it lets the
 * {@link Replicator} group submits that arrive while earlier writes are in flight into one Raft entry, so that Raft's
 * per-entry cost (log write, fsync, append round, reply) is paid once per group: many times the throughput under
 * concurrent writers.
 *
 * <p>The handler then sees {@link #apply} called once per command of such an entry, in submission order, all with the
 * entry's {@code index} and {@code timestampMillis}; each call's result goes to that command's submitter alone. Every
 * replica, and every replay, applies the same entry the same way. A handler that needs each command at an index of its
 * own (for example, one state-store transaction per index that must advance) must not implement this interface: its
 * commands are then never grouped.
 */
@ConsumerType
public interface BatchingCommandHandler extends CommandHandler {
}
