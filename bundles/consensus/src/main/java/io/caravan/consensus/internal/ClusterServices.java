package io.caravan.consensus.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import io.caravan.agent.GracefulLeave;
import io.caravan.consensus.RaftConfiguration;
import io.caravan.consensus.Replicator;
import io.caravan.rpc.LeaderLocator;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running Raft server as the agent and the RPC layer need it: where the leader is, by RPC address (Raft peer ids
 * mapped through the {@code id} and {@code rpc_addr}/{@code port} tags servers gossip, see
 * {@link RaftConfiguration.Server#rpcAddress()}), and how to leave cleanly.
 */
@Component(configurationPid = "io.caravan.server", configurationPolicy = ConfigurationPolicy.REQUIRE)
public final class ClusterServices implements LeaderLocator, GracefulLeave {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterServices.class);
    private static final long POLL_MS = 100;

    private final Replicator raft;
    private final RaftConfiguration group;
    private final String selfId;
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile ClusterMembership membership;

    @Activate
    public ClusterServices(@Reference Replicator raft, @Reference RaftConfiguration group, ServerPidConfig config) {
        this.raft = raft;
        this.group = group;
        this.selfId = config.node_id();
    }

    /** A reload: nothing here changes live; without this method DS would restart the component on every change. */
    @Modified
    void modified() {
        // nothing to apply
    }

    @Override
    public boolean isLeader() {
        return raft.isLeader();
    }

    @Override
    public Optional<String> leaderRpcAddress() {
        return group.servers().stream().filter(RaftConfiguration.Server::leader).findFirst()
                .map(RaftConfiguration.Server::rpcAddress).filter(a -> !a.isEmpty());
    }

    /**
     * The leader first, then the other voters, by RPC address; a server whose RPC address membership does not know
     * (yet) is left out rather than named by its Raft address, which clients would dial as an RPC server.
     */
    @Override
    public List<String> serverRpcAddresses() {
        List<String> out = new ArrayList<>();
        leaderRpcAddress().ifPresent(out::add);
        for (RaftConfiguration.Server s : group.servers()) {
            if (!s.rpcAddress().isEmpty() && !out.contains(s.rpcAddress())) {
                out.add(s.rpcAddress());
            }
        }
        return out;
    }

    /**
     * The leader first takes itself out of the group (the others elect a new leader); a follower leaves membership
     * and waits for the leader to remove it.
     */
    @Override
    public void leave(Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        if (raft.isLeader() && group.servers().size() > 1) {
            LOG.info("Leaving: this server, the leader, removes itself from the Raft group");
            group.removePeer(selfId).toCompletableFuture().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        ClusterMembership m = membership;
        if (m != null) {
            m.leave();
        }
        while (System.nanoTime() < deadline && group.servers().size() > 1
                && group.servers().stream().anyMatch(s -> s.id().equals(selfId))) {
            Thread.sleep(POLL_MS);
        }
    }
}
