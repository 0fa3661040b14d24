package io.caravan.agent;

import java.time.Duration;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Something that must leave the cluster cleanly before the agent stops, when {@code leave_on_interrupt} or
 * {@code leave_on_terminate} asks for it (a server leaves the Raft configuration, a client drains).
 */
@ConsumerType
public interface GracefulLeave {
    void leave(Duration timeout) throws Exception;
}
