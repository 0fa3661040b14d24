package io.caravan.membership.internal;

import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * The serf part of PID {@code io.caravan.server}, written by the agent. DS maps {@code _} to {@code .}:
 * {@code serf_bind()} reads {@code serf.bind}. Other keys of the PID belong to other components.
 */
@ObjectClassDefinition(name = "Caravan server: membership (serf)")
@interface ServerPidConfig {
    /** This server's node id (tag {@code id}). */
    String node_id() default "";

    /** Node name; the member name is {@code <name>.<region>}. */
    String name() default "";

    String region() default "global";

    /** Tag {@code dc}. */
    String datacenter() default "dc1";

    /** Tag {@code build}. */
    String version() default "";

    /** {@code host:port} the serf listener binds (port 4648 when omitted); empty: membership is not started. */
    String serf_bind() default "";

    /** {@code host:port} other servers reach our serf listener on; empty: serf.bind. */
    String serf_advertise() default "";

    /** {@code host:port} of the RPC listener (tags {@code rpc_addr} and {@code port}). */
    String rpc_advertise() default "";

    /** {@code host:port} of the Raft transport (tag {@code raft_addr}). */
    String raft_addr() default "";

    /** Base64 gossip key (16, 24 or 32 bytes); empty: no encryption. */
    String encrypt() default "";

    /** {@code host[:port]} (port 4648 by default) or go-discover strings ({@code provider=dns name=...}). */
    String[] retry_join() default {};

    long retry_interval_ms() default 30_000;

    /** Join attempts before giving up; 0: forever. */
    int retry_max() default 0;

    /** Nomad's bootstrap_expect (tag {@code expect}; {@code bootstrap=1} when 1). */
    long bootstrap_expect() default 0;

    /** How long a member's heartbeat may stand still before it is FAILED. */
    long suspect_timeout_ms() default 5_000;
}
