package io.caravan.server.internal;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.caravan.api.GoDuration;
import io.caravan.consensus.RaftConfiguration;
import io.caravan.membership.Member;
import io.caravan.state.StateSnapshot;
import io.caravan.state.StateTxn;
import io.caravan.state.TableSpec;

/**
 * Nomad's autopilot on Caravan: its configuration (stored through the log) and the servers' health as the leader sees
 * it. A server is healthy when its gossip status is alive, the leader heard from it within
 * {@code LastContactThreshold}, and it trails the leader's log by at most {@code MaxTrailingLogs}; the cluster is
 * healthy when every server is; the failure tolerance is how many healthy voters could fail with a quorum left.
 * {@code CleanupDeadServers} and {@code MinQuorum} are acted on by the consensus bundle's leader
 * ({@link RaftConfiguration#deadServerCleanup}).
 */
final class Autopilot {
    static final TableSpec<AutopilotConfig> CONFIG = TableSpec.of("autopilot_config", AutopilotConfig.class,
            c -> AutopilotConfig.KEY);
    /** Go's zero time, which Nomad shows for a server never seen stable. */
    static final String ZERO_TIME = "0001-01-01T00:00:00Z";

    /** Nomad's {@code ServerHealth}. */
    record ServerHealth(@JsonProperty("ID") String id, @JsonProperty("Name") String name,
                        @JsonProperty("Address") String address, @JsonProperty("SerfStatus") String serfStatus,
                        @JsonProperty("Version") String version, @JsonProperty("Leader") boolean leader,
                        @JsonProperty("LastContact") String lastContact, @JsonProperty("LastTerm") long lastTerm,
                        @JsonProperty("LastIndex") long lastIndex, @JsonProperty("Healthy") boolean healthy,
                        @JsonProperty("Voter") boolean voter, @JsonProperty("StableSince") String stableSince) {}

    /** Nomad's {@code OperatorHealthReply}. */
    record HealthReply(@JsonProperty("Healthy") boolean healthy,
                       @JsonProperty("FailureTolerance") int failureTolerance,
                       @JsonProperty("Servers") List<ServerHealth> servers) {}

    /** Since when each server has been healthy (or unhealthy): the leader's memory between two health reads. */
    static final class Stability {
        private final Map<String, Boolean> healthy = new HashMap<>();
        private final Map<String, Instant> since = new HashMap<>();

        synchronized Instant seen(String id, boolean isHealthy, Instant now) {
            Boolean before = healthy.put(id, isHealthy);
            if (before == null || before != isHealthy) {
                since.put(id, now);
            }
            return since.get(id);
        }
    }

    private Autopilot() {
    }

    static AutopilotConfig config(StateSnapshot s) {
        return config(s, AutopilotConfig.DEFAULT);
    }

    /** The stored configuration, or {@code initial} (the agent's {@code autopilot} block) until one is written. */
    static AutopilotConfig config(StateSnapshot s, AutopilotConfig initial) {
        return s.get(CONFIG, AutopilotConfig.KEY).orElse(initial);
    }

    /**
     * The agent's {@code autopilot} block as the server's configuration carries it ({@code autopilot.<key>}, with
     * Nomad's key names or their dotted forms): Nomad's defaults for keys not given.
     *
     * @throws IllegalArgumentException naming the key of a value that does not parse
     */
    static AutopilotConfig fromAgent(java.util.Map<String, Object> properties) {
        java.util.function.Function<String, Optional<String>> key = name -> {
            Object v = properties.get("autopilot." + name);
            if (v == null) {
                v = properties.get("autopilot." + name.replace('_', '.'));
            }
            return Optional.ofNullable(v).map(String::valueOf);
        };
        AutopilotConfig d = AutopilotConfig.DEFAULT;
        try {
            return new AutopilotConfig(
                    key.apply("cleanup_dead_servers").map(Boolean::parseBoolean).orElse(d.cleanupDeadServers()),
                    key.apply("last_contact_threshold").orElse(d.lastContactThreshold()),
                    key.apply("max_trailing_logs").map(Long::parseLong).orElse(d.maxTrailingLogs()),
                    key.apply("min_quorum").map(Integer::parseInt).orElse(d.minQuorum()),
                    key.apply("server_stabilization_time").orElse(d.serverStabilizationTime()),
                    key.apply("enable_redundancy_zones").map(Boolean::parseBoolean).orElse(false),
                    key.apply("disable_upgrade_migration").map(Boolean::parseBoolean).orElse(false),
                    key.apply("enable_custom_upgrades").map(Boolean::parseBoolean).orElse(false), 0, 0).validated();
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("autopilot: " + e.getMessage());
        }
    }

    /** The applier: Nomad's check-and-set on the stored configuration's ModifyIndex (0: none stored yet). */
    static Command.Result setConfig(Fsm.Txn txn, Command.AutopilotConfigUpdate cmd) {
        StateTxn state = txn.state();
        long index = txn.index();
        AutopilotConfig current = state.get(CONFIG, AutopilotConfig.KEY).orElse(null);
        if (cmd.cas() && (current == null ? 0 : current.modifyIndex()) != cmd.expectedIndex()) {
            return Command.Result.rejected(index, 409, "autopilot configuration changed since index "
                    + cmd.expectedIndex());
        }
        long createIndex = current == null ? index : current.createIndex();
        state.put(CONFIG, cmd.config().withIndexes(createIndex, index));
        return Command.Result.ok(index);
    }

    /**
     * The servers' health, from the leader's view of replication.
     *
     * @param servers the Raft configuration's members (all voters)
     * @param progress the leader's {@link RaftConfiguration#progress()}; its first entry is the leader
     * @param members the gossip pool (a server no member vouches for has SerfStatus "none" and is unhealthy)
     */
    static HealthReply health(AutopilotConfig config, List<RaftConfiguration.Server> servers,
                              List<RaftConfiguration.Progress> progress, long term, List<Member> members,
                              Stability stability, Instant now) {
        Map<String, RaftConfiguration.Progress> byId = new HashMap<>();
        progress.forEach(p -> byId.put(p.id(), p));
        long leaderIndex = progress.isEmpty() ? 0 : progress.get(0).matchIndex();
        long threshold = config.lastContact().toMillis();
        List<ServerHealth> out = new ArrayList<>();
        int healthyVoters = 0;
        int voters = 0;
        boolean allHealthy = true;
        for (RaftConfiguration.Server s : servers) {
            Optional<Member> member = members.stream().filter(m -> s.id().equals(m.tag("id"))).findFirst();
            String serf = member.map(m -> m.status().wireName()).orElse("none");
            RaftConfiguration.Progress p = byId.get(s.id());
            long lastContact = p == null ? -1 : p.lastContactMillis();
            long lastIndex = p == null ? 0 : p.matchIndex();
            boolean healthy = "alive".equals(serf) && p != null
                    && (s.leader() || lastContact <= threshold && lastIndex + config.maxTrailingLogs() >= leaderIndex);
            Instant since = stability.seen(s.id(), healthy, now);
            out.add(new ServerHealth(s.id(), member.map(Member::name).orElse("(unknown)"),
                    s.rpcAddress().isEmpty() ? s.address() : s.rpcAddress(), serf,
                    member.map(m -> Optional.ofNullable(m.tag("build")).orElse("")).orElse(""), s.leader(),
                    GoDuration.format(Duration.ofMillis(Math.max(0, lastContact))),
                    // Ratis tells the leader no follower's term; one that answered within the threshold is on the
                    // leader's (it would have refused the leader's appends otherwise).
                    healthy ? term : 0, lastIndex, healthy, s.voter(),
                    healthy ? since.truncatedTo(ChronoUnit.MILLIS).toString() : ZERO_TIME));
            if (s.voter()) {
                voters++;
                healthyVoters += healthy ? 1 : 0;
            }
            allHealthy &= healthy;
        }
        int quorum = voters / 2 + 1;
        return new HealthReply(allHealthy && !servers.isEmpty(), Math.max(0, healthyVoters - quorum), out);
    }
}
