package io.caravan.consensus.internal;

import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * The Raft part of PID {@code io.caravan.server}; the agent writes that PID only when the server is enabled. DS maps
 * {@code _} to {@code .}: {@code raft_dir()} reads {@code raft.dir}. Other keys of the PID belong to other components
 * and are ignored here.
 */
@ObjectClassDefinition(name = "Caravan server: Raft log")
@interface ServerPidConfig {
    /** This server's Raft peer id; stable across restarts, since the log records who voted. Required. */
    String node_id() default "";

    /** {@code host:port} the Raft transport binds and peers dial (not the RPC port: that one speaks WebSocket). */
    String raft_addr() default "";

    /** This server's advertised RPC address ({@code host:port}): how the API names it when membership cannot. */
    String rpc_advertise() default "";

    /** The agent's data directory; log and snapshots go to {@code <data.dir>/server/raft} unless raft.dir is set. */
    String data_dir() default "";

    /** Where the Raft log and snapshots live; overrides the data.dir default. */
    String raft_dir() default "";

    /** Voting members as {@code id=host:port}; this server is always one. Empty: a one-server group. */
    String[] raft_peers() default {};

    /** Servers to wait for before forming a new Raft group (Nomad's bootstrap_expect); 0 never bootstraps. */
    long bootstrap_expect() default 0;

    /**
     * The gossip key (base64), Nomad's {@code server.encrypt}; the Raft port's mutual TLS binds certificates to it.
     * Empty: plaintext, except in dev mode.
     */
    String encrypt() default "";

    /** A dev agent: a one-server group at once. */
    boolean dev_mode() default false;

    /** Only servers of this region form the group. */
    String region() default "global";

    /** How long a server must be seen failed before the leader removes it from the group (autopilot's cleanup). */
    long dead_server_cleanup_ms() default 60_000;

    /** Nomad's {@code raft_snapshot_threshold}: entries applied between automatic snapshots. */
    long raft_snapshot_threshold() default RaftSettings.DEFAULT_SNAPSHOT_THRESHOLD;

    /**
     * Nomad's {@code raft_snapshot_interval}: at most one snapshot per interval (Nomad's Raft checks the threshold
     * that often), so a burst of writes is not followed by a snapshot of the whole state every few seconds.
     */
    String raft_snapshot_interval() default RaftSettings.DEFAULT_SNAPSHOT_INTERVAL;

    /** Nomad's {@code raft_trailing_logs}: entries kept in the log behind the latest snapshot. */
    long raft_trailing_logs() default RaftSettings.DEFAULT_TRAILING_LOGS;

    /** How long a submit waits for a leader before failing with {@code No cluster leader}. */
    long raft_leader_wait_ms() default RaftSettings.DEFAULT_LEADER_WAIT_MS;
}
