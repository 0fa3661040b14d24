package io.caravan.consensus.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;

import org.apache.ratis.protocol.exceptions.ReconfigurationTimeoutException;

/**
 * Three {@link RaftNode}s on loopback ports, each built by the test's own settings (how its port is secured), for
 * the tests that check who may replicate: start, wait for a leader, replicate, and show that a fourth server the
 * port refuses cannot join.
 */
final class ThreeServers implements AutoCloseable {
    static final Duration WAIT = Duration.ofSeconds(30);

    final List<Peer> peers = new ArrayList<>();
    final List<RaftNode> nodes = new ArrayList<>();
    private final List<CountingHandler> handlers = new ArrayList<>();
    private final AtomicLong values = new AtomicLong();

    /** @param settings the settings of a server ({@code self}) in a group */
    ThreeServers(String prefix, BiFunction<Peer, List<Peer>, RaftSettings> settings) throws Exception {
        for (int i = 1; i <= 3; i++) {
            peers.add(new Peer(prefix + i, "127.0.0.1:" + TestNodes.freePort()));
        }
        for (Peer self : peers) {
            CountingHandler handler = new CountingHandler(false);
            handlers.add(handler);
            nodes.add(new RaftNode(settings.apply(self, peers), handler, System::currentTimeMillis));
        }
        for (RaftNode n : nodes) {
            n.start();
        }
    }

    void awaitReady() throws InterruptedException {
        for (RaftNode n : nodes) {
            assertTrue(n.awaitReady(WAIT), "not ready within " + WAIT);
        }
    }

    RaftNode leader() throws InterruptedException {
        TestNodes.await(WAIT, () -> nodes.stream().filter(RaftNode::isLeader).count() == 1, "exactly one leader");
        return nodes.stream().filter(RaftNode::isLeader).findFirst().orElseThrow();
    }

    /** Submits {@code count} commands through the leader and waits until every server applied the same entries. */
    void replicate(int count) throws Exception {
        RaftNode leader = leader();
        for (int i = 0; i < count; i++) {
            leader.submit(CountingHandler.command(values.incrementAndGet())).toCompletableFuture()
                    .get(10, TimeUnit.SECONDS);
        }
        TestNodes.await(WAIT, () -> handlers.stream().allMatch(h -> h.count == values.get()),
                "every server applied the " + values.get() + " commands");
        assertEquals(1, handlers.stream().map(h -> h.checksum).distinct().count(), "the same entries everywhere");
    }

    /**
     * A fourth server with {@code strangerSettings} (built for the four) is refused: adding it times out, the group
     * stays at three, the stranger gets no entry and finds no leader, and the three still replicate.
     */
    void cannotJoin(String id, BiFunction<Peer, List<Peer>, RaftSettings> strangerSettings) throws Exception {
        Peer self = new Peer(id, "127.0.0.1:" + TestNodes.freePort());
        List<Peer> four = new ArrayList<>(peers);
        four.add(self);
        CountingHandler handler = new CountingHandler(false);
        try (RaftNode stranger = new RaftNode(strangerSettings.apply(self, four), handler,
                System::currentTimeMillis)) {
            stranger.start();
            ExecutionException refused = assertThrows(ExecutionException.class,
                    () -> leader().setPeers(four).toCompletableFuture().get(120, TimeUnit.SECONDS));
            // The leader never got an append through to it, so it never caught up.
            assertInstanceOf(ReconfigurationTimeoutException.class, refused.getCause().getCause(), refused.toString());
            for (RaftNode n : nodes) {
                assertEquals(Set.copyOf(peers), Set.copyOf(n.configuration()),
                        "the group stays at three");
            }
            assertFalse(stranger.leaderId().isPresent(), "the stranger found no leader");
            assertEquals(0, stranger.lastAppliedIndex(), "the stranger got no entry");
            assertEquals(0, handler.count);
            replicate(1);
        }
    }

    @Override
    public void close() {
        nodes.forEach(RaftNode::close);
    }
}
