package io.caravan.membership;

import java.util.List;
import java.util.function.Consumer;

import org.osgi.annotation.versioning.ProviderType;

/**
 * This server's view of the server gossip pool (Nomad's serf LAN/WAN pool: every server of every region). Registered
 * while the agent is a server (PID {@code io.caravan.server}).
 */
@ProviderType
public interface Membership {

    /** Default serf port, used when a join address has none. */
    int DEFAULT_PORT = 4648;

    /** This server as others see it. */
    Member self();

    /** Every known member, this server included, sorted by name. */
    List<Member> members();

    /**
     * Joins the pool through the given servers: one gossip exchange with each.
     *
     * @param addresses {@code host[:port]} ({@code [v6]:port} for IPv6 literals); the port defaults to {@value #DEFAULT_PORT}
     * @return how many addresses answered
     * @throws MembershipException when none answered; the message says why for each address (e.g. {@code wrong gossip key})
     */
    int join(List<String> addresses) throws MembershipException;

    /** Graceful leave: tells the other members this server LEFT, then stops gossiping. Not undone by {@link #join}. */
    void leave();

    /**
     * Nomad's force-leave: a FAILED member becomes LEFT, and that is gossiped to the others.
     *
     * @return true when the member is now LEFT (it was FAILED or had left already); false when it is unknown or alive
     */
    boolean forceLeave(String name);

    /**
     * Adds or replaces tags of this server's member ({@code null} removes one); the others see them with its next
     * heartbeat. How a server says what only it knows, such as that its Raft log is running.
     */
    void setTags(java.util.Map<String, String> tags);

    /** Calls {@code onChange} with {@link #members()} whenever a member joins, changes status or tags, or is reaped. */
    void addListener(Consumer<List<Member>> onChange);

    void removeListener(Consumer<List<Member>> onChange);
}
