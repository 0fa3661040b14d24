package io.caravan.consensus.internal;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

import io.caravan.metrics.MetricSink;
import io.caravan.metrics.Timing;

/**
 * This server's Raft metrics under Nomad's names (hashicorp/raft's): {@code nomad.raft.appliedIndex} and
 * {@code nomad.raft.lastIndex} (gauges), {@code nomad.raft.apply} (writes committed through this server) and
 * {@code nomad.raft.commitTime} (their time from submit until applied here: Ratis answers after applying, so it
 * includes the apply, which hashicorp/raft's does not), and {@code nomad.raft.state.leader|follower|candidate}
 * (times this server was seen entering the role; seen at each sample, so a role held shorter than
 * {@code collection_interval} may be missed), and on the leader {@code nomad.raft.leader.lastContact} (each
 * follower's time since its last answer, observed at each sample).
 */
final class RaftMetrics {
    /** A server's role and indexes at one moment. */
    record State(boolean leader, boolean follower, boolean candidate, long appliedIndex, long lastIndex,
                 List<Long> followerContactMillis) {
        String role() {
            return leader ? "leader" : follower ? "follower" : candidate ? "candidate" : null;
        }
    }

    private final Supplier<State> state;
    private final LongAdder applied = new LongAdder();
    private final Timing commitTime = new Timing();
    private final Timing lastContact = new Timing();
    private final Map<String, LongAdder> entered = Map.of("leader", new LongAdder(), "follower", new LongAdder(),
            "candidate", new LongAdder());
    private String lastRole;   // the sampler's own

    RaftMetrics(Supplier<State> state) {
        this.state = state;
    }

    void applied(long nanos) {
        applied.increment();
        commitTime.recordNanos(nanos);
    }

    synchronized void sample(MetricSink sink) {
        Map<String, String> none = Map.of();
        State now = state.get();
        if (now != null) {
            String role = now.role();
            if (role != null && !role.equals(lastRole)) {
                entered.get(role).increment();
            }
            lastRole = role;
            sink.gauge("nomad.raft.appliedIndex", none, now.appliedIndex());
            sink.gauge("nomad.raft.lastIndex", none, now.lastIndex());
            now.followerContactMillis().forEach(lastContact::recordMillis);
        }
        entered.forEach((role, n) -> sink.counter("nomad.raft.state." + role, none, n.sum()));
        sink.counter("nomad.raft.apply", none, applied.sum());
        sink.timer("nomad.raft.commitTime", none, commitTime.snapshot());
        if (lastContact.count() > 0) {
            sink.timer("nomad.raft.leader.lastContact", none, lastContact.snapshot());
        }
    }
}
