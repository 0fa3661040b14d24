package io.caravan.consensus.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

import io.caravan.consensus.Applied;
import io.caravan.consensus.RaftConfiguration;
import io.caravan.consensus.Replicator;
import io.caravan.membership.Member;
import io.caravan.membership.Membership;
import org.junit.jupiter.api.Test;

/**
 * Servers are named by RPC address wherever the API or clients see them: from the {@code id}, {@code rpc_addr} and
 * {@code port} tags gossip carries, and never by the Raft address, which is no RPC server.
 */
class ServerAddressesTest {

    private static ServerPidConfig config(Map<String, Object> values) {
        return (ServerPidConfig) Proxy.newProxyInstance(ServerPidConfig.class.getClassLoader(),
                new Class<?>[] {ServerPidConfig.class},
                (proxy, method, args) -> values.getOrDefault(method.getName(), method.getDefaultValue()));
    }

    private static Member server(String id, String region, String rpcHost, String raftAddress) {
        return new Member(id + "." + region, "10.0.0.1:4648", Member.Status.ALIVE, Map.of("role", "nomad",
                "region", region, "id", id, "rpc_addr", rpcHost, "port", "4647", "raft_addr", raftAddress), 1);
    }

    /** Only the members; everything else is not needed here. */
    record Pool(List<Member> members) implements Membership {
        public Member self() { return members.get(0); }
        public int join(List<String> addresses) { return 0; }
        public void leave() { }
        public boolean forceLeave(String name) { return false; }
        public void setTags(Map<String, String> tags) { }
        public void addListener(Consumer<List<Member>> onChange) { }
        public void removeListener(Consumer<List<Member>> onChange) { }
    }

    /** A fixed group; the Replicator side is unused by the address lookups. */
    static final class Group implements RaftConfiguration, Replicator {
        final List<Server> servers = new ArrayList<>();

        public List<Server> servers() { return List.copyOf(servers); }
        public CompletionStage<Void> removePeer(String idOrAddress) { return CompletableFuture.completedFuture(null); }
        public CompletionStage<Applied> submit(byte[] command) { throw new UnsupportedOperationException(); }
        public boolean isLeader() { return false; }
        public Optional<String> leaderAddress() { return Optional.of("10.0.0.1:4649"); }
        public long lastAppliedIndex() { return 0; }
        public List<String> peers() { return List.of(); }
    }

    @Test
    void membershipMapsNodeIdsToRpcAddressesOfItsRegion() {
        GossipMembership m = new GossipMembership(new Pool(List.of(
                server("a", "global", "10.0.0.1", "10.0.0.1:4649"),
                server("b", "global", "fd00::2", "[fd00::2]:4649"),
                server("c", "eu", "10.0.0.3", "10.0.0.3:4649"))), config(Map.of("region", "global")));
        assertEquals(Optional.of("10.0.0.1:4647"), m.rpcAddressOf("a"));
        assertEquals(Optional.of("[fd00::2]:4647"), m.rpcAddressOf("b"));
        assertEquals(Optional.empty(), m.rpcAddressOf("c"), "another region's server");
        assertEquals(Optional.empty(), m.rpcAddressOf("10.0.0.1:4649"), "a Raft address is no node ID");
    }

    @Test
    void theLeaderAndPeersAreRpcAddressesAndAServerWithoutOneIsLeftOut() {
        Group group = new Group();
        group.servers.add(new RaftConfiguration.Server("a", "10.0.0.1:4649", "10.0.0.1:4647", false, true));
        group.servers.add(new RaftConfiguration.Server("b", "10.0.0.2:4649", "10.0.0.2:4647", true, true));
        group.servers.add(new RaftConfiguration.Server("c", "10.0.0.3:4649", false, true));   // not in gossip yet
        ClusterServices services = new ClusterServices(group, group, config(Map.of("node_id", "a")));

        assertEquals(Optional.of("10.0.0.2:4647"), services.leaderRpcAddress());
        assertEquals(List.of("10.0.0.2:4647", "10.0.0.1:4647"), services.serverRpcAddresses(),
                "the leader first; never c's Raft address");

        group.servers.set(1, new RaftConfiguration.Server("b", "10.0.0.2:4649", true, true));
        assertEquals(Optional.empty(), services.leaderRpcAddress(), "a leader of unknown RPC address is no leader to "
                + "forward to, rather than its Raft address");
        assertEquals(List.of("10.0.0.1:4647"), services.serverRpcAddresses());
    }
}
