package io.caravan.rpc;

import java.util.List;
import java.util.Optional;

import org.osgi.annotation.versioning.ConsumerType;

/** What a server knows of the servers: whether it leads, the leader's RPC address, and every server's. */
@ConsumerType
public interface LeaderLocator {
    boolean isLeader();

    /** The leader's RPC address ({@code host:port}), when one is known. */
    Optional<String> leaderRpcAddress();

    /** The region's servers' RPC addresses, leader first: what clients are told in heartbeat replies. */
    List<String> serverRpcAddresses();
}
