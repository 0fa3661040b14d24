package io.caravan.consensus.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import io.caravan.membership.Member;
import io.caravan.membership.Member.Status;

/**
 * How the Raft group follows membership, as pure functions: the group a new server starts with (bootstrap with
 * {@code bootstrap_expect} servers, or join servers whose Raft already runs), and the one change at a time the leader
 * makes so that servers that joined become voters and servers that left, or stayed dead, stop being ones.
 */
final class RaftMembers {
    /** Member tags read here: the node ID (= Raft peer id), the Raft address, and "my Raft log runs". */
    static final String TAG_ID = "id";
    static final String TAG_RAFT_ADDR = "raft_addr";
    static final String TAG_RAFT_RUNNING = "raft";

    private RaftMembers() {
    }

    /** Servers of {@code region} that carry a Raft identity. */
    static List<Member> servers(List<Member> members, String region) {
        return members.stream()
                .filter(m -> "nomad".equals(m.tag("role")) && region.equals(m.tag("region")))
                .filter(m -> m.tag(TAG_ID) != null && m.tag(TAG_RAFT_ADDR) != null)
                .toList();
    }

    static Peer peer(Member m) {
        return new Peer(m.tag(TAG_ID), m.tag(TAG_RAFT_ADDR));
    }

    /**
     * The group a server without Raft state starts with, or empty to wait: the running servers plus itself when any
     * server's Raft already runs (it joins; the leader adds it), else all alive servers once {@code expect} of them
     * (itself included) are visible (Nomad's bootstrap_expect). {@code expect} 0 never bootstraps.
     */
    static Optional<List<Peer>> initialGroup(Peer self, List<Member> members, String region, int expect) {
        List<Member> alive = servers(members, region).stream().filter(m -> m.status() == Status.ALIVE).toList();
        List<Peer> running = alive.stream()
                .filter(m -> "1".equals(m.tag(TAG_RAFT_RUNNING)) && !self.id().equals(m.tag(TAG_ID)))
                .map(RaftMembers::peer).toList();
        if (!running.isEmpty()) {
            List<Peer> group = new ArrayList<>(running);
            group.add(self);
            return Optional.of(sorted(group));
        }
        if (expect > 0 && alive.size() >= expect && alive.stream().anyMatch(m -> self.id().equals(m.tag(TAG_ID)))) {
            return Optional.of(sorted(alive.stream().map(RaftMembers::peer).toList()));
        }
        return Optional.empty();
    }

    /**
     * The leader's next configuration, or empty when the group matches membership: first add an alive server that is
     * not a voter and whose Raft runs (a server that left and restarted included: it rejoins), then remove a voter
     * whose server left, then one failed for longer than {@code deadAfter} — only while the voters left alive would
     * still be a majority of the smaller group.
     *
     * @param failedFor how long each failed server (by id) has been seen failed
     */
    static Optional<List<Peer>> nextConfiguration(Peer self, List<Peer> current, List<Member> members, String region,
                                                  Map<String, Duration> failedFor, Duration deadAfter) {
        List<Member> servers = servers(members, region);
        Set<String> voters = current.stream().map(Peer::id).collect(Collectors.toSet());
        for (Member m : servers) {
            // Only once its Raft runs: adding a server that cannot answer yet stalls Ratis' staging of it, and with
            // it any other change, until the attempt times out.
            if (m.status() == Status.ALIVE && "1".equals(m.tag(TAG_RAFT_RUNNING))
                    && !voters.contains(m.tag(TAG_ID))) {
                List<Peer> next = new ArrayList<>(current);
                next.add(peer(m));
                return Optional.of(sorted(next));
            }
        }
        for (Member m : servers) {
            String id = m.tag(TAG_ID);
            if (id.equals(self.id()) || !voters.contains(id)) {
                continue;
            }
            boolean left = m.status() == Status.LEFT;
            boolean dead = m.status() == Status.FAILED
                    && failedFor.getOrDefault(id, Duration.ZERO).compareTo(deadAfter) >= 0;
            if (left || dead) {
                List<Peer> next = current.stream().filter(p -> !p.id().equals(id)).toList();
                if (left || aliveVoters(next, servers) * 2 > next.size()) {
                    return Optional.of(next);
                }
            }
        }
        return Optional.empty();
    }

    /**
     * Whether autopilot lets the leader make the change {@code current} → {@code next}: one that removes a failed
     * server only with {@code CleanupDeadServers} on and at least {@code minQuorum} voters left (Nomad's MinQuorum);
     * any other change (adding a server, removing one that left) always.
     */
    static boolean autopilotAllows(List<Peer> current, List<Peer> next, List<String> failed, boolean cleanup,
                                   int minQuorum) {
        boolean removesFailed = current.stream().filter(p -> !next.contains(p)).anyMatch(p -> failed.contains(p.id()));
        return !removesFailed || cleanup && next.size() >= minQuorum;
    }

    private static long aliveVoters(List<Peer> group, List<Member> servers) {
        Set<String> alive = servers.stream().filter(m -> m.status() == Status.ALIVE).map(m -> m.tag(TAG_ID))
                .collect(Collectors.toSet());
        return group.stream().filter(p -> alive.contains(p.id())).count();
    }

    private static List<Peer> sorted(List<Peer> peers) {
        return peers.stream().sorted(Comparator.comparing(Peer::id)).toList();
    }
}
