package io.caravan.consensus.internal;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

import io.caravan.consensus.Applied;
import io.caravan.consensus.RaftConfiguration;
import io.caravan.consensus.Replicator;
import io.caravan.metrics.MetricSink;
import io.caravan.metrics.MetricSource;

/** One running Raft server as the services others use: writes, the group as operators see it, its metrics. */
final class RaftServices implements Replicator, RaftConfiguration, MetricSource {
    private final RaftNode node;
    private final Function<String, Optional<String>> rpcAddressOf;
    private final CleanupPolicy cleanup;

    /** Where {@link #deadServerCleanup} goes: the component that follows membership. */
    interface CleanupPolicy {
        void set(boolean enabled, int minQuorum);
    }

    /**
     * @param rpcAddressOf a server's RPC address by node ID, when known (never its Raft address)
     * @param cleanup told of autopilot's dead-server cleanup settings
     */
    RaftServices(RaftNode node, Function<String, Optional<String>> rpcAddressOf, CleanupPolicy cleanup) {
        this.node = node;
        this.rpcAddressOf = rpcAddressOf;
        this.cleanup = cleanup;
    }

    @Override
    public List<Progress> progress() {
        return node.progress();
    }

    @Override
    public long term() {
        return node.term();
    }

    @Override
    public void deadServerCleanup(boolean enabled, int minQuorum) {
        cleanup.set(enabled, minQuorum);
    }

    @Override
    public CompletionStage<Applied> submit(byte[] command) {
        return node.submit(command);
    }

    @Override
    public void sample(MetricSink sink) {
        node.metrics().sample(sink);
    }

    @Override
    public boolean isLeader() {
        return node.isLeader();
    }

    @Override
    public Optional<String> leaderAddress() {
        return node.leaderAddress();
    }

    @Override
    public long lastAppliedIndex() {
        return node.lastAppliedIndex();
    }

    @Override
    public CompletionStage<Void> awaitConsistentRead() {
        return node.awaitConsistentRead();
    }

    @Override
    public long lastLeaderContactMillis() {
        return node.lastLeaderContactMillis();
    }

    @Override
    public List<String> peers() {
        return node.peers();
    }

    @Override
    public List<Server> servers() {
        Optional<String> leader = node.leaderId();
        return node.configuration().stream()
                .map(p -> new Server(p.id(), p.address(), rpcAddressOf.apply(p.id()).orElse(""),
                        leader.map(p.id()::equals).orElse(false), true))
                .toList();
    }

    @Override
    public CompletionStage<Void> removePeer(String idOrAddress) {
        List<Peer> current = node.configuration();
        List<Peer> next = current.stream()
                .filter(p -> !p.id().equals(idOrAddress) && !p.address().equals(idOrAddress)).toList();
        if (next.size() == current.size()) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "peer \"" + idOrAddress + "\" was not found in the Raft configuration"));
        }
        return node.setPeers(next);
    }
}
