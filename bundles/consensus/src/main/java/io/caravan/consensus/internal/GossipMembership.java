package io.caravan.consensus.internal;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.caravan.membership.Member;
import io.caravan.membership.Membership;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;

/** {@link ClusterMembership} from the membership bundle's gossip; present while a {@link Membership} is. */
@Component(configurationPid = "io.caravan.server", configurationPolicy = ConfigurationPolicy.REQUIRE)
public final class GossipMembership implements ClusterMembership {
    private final Membership membership;
    private final String region;
    private final Duration deadAfter;

    @Activate
    public GossipMembership(@Reference Membership membership, ServerPidConfig config) {
        this.membership = membership;
        this.region = config.region();
        this.deadAfter = Duration.ofMillis(config.dead_server_cleanup_ms());
    }

    /**
     * A reload: the region is restart-only, and the agent never writes {@code dead.server.cleanup.ms} (autopilot is
     * not read). Without this method DS would restart the component
     * on every change of the server's PID.
     */
    @Modified
    void modified() {
        // nothing to apply
    }

    @Override
    public Optional<List<Peer>> initialGroup(Peer self, int expect) {
        return RaftMembers.initialGroup(self, membership.members(), region, expect);
    }

    @Override
    public int visibleServers() {
        return RaftMembers.servers(membership.members(), region).size();
    }

    @Override
    public Optional<List<Peer>> nextConfiguration(Peer self, List<Peer> current, Map<String, Duration> failedFor) {
        return RaftMembers.nextConfiguration(self, current, membership.members(), region, failedFor, deadAfter);
    }

    @Override
    public List<String> failedServers() {
        return RaftMembers.servers(membership.members(), region).stream()
                .filter(m -> m.status() == Member.Status.FAILED).map(m -> m.tag(RaftMembers.TAG_ID)).toList();
    }

    @Override
    public void announceRunning() {
        membership.setTags(Map.of(RaftMembers.TAG_RAFT_RUNNING, "1"));
    }

    @Override
    public Optional<String> rpcAddressOf(String nodeId) {
        return RaftMembers.servers(membership.members(), region).stream()
                .filter(m -> nodeId.equals(m.tag(RaftMembers.TAG_ID)))
                .findFirst().flatMap(Member::rpcAddress);
    }

    @Override
    public void leave() {
        membership.leave();
    }
}
