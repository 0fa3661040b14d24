package io.caravan.agent.internal;

import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * PID {@code io.caravan.agent}: the local agent as configured. Written by {@link PidTranslator}; an edit made in
 * Config Admin directly (web console, {@code etc/io.caravan.agent.cfg}) shows in {@code /v1/agent/self} too.
 */
@ObjectClassDefinition(name = "Caravan agent")
@interface AgentPidConfig {
    String region() default "global";

    String datacenter() default "dc1";

    String name() default "";

    String node_id() default "";

    String version() default "";

    String data_dir() default "";

    String plugin_dir() default "";

    boolean dev_mode() default false;

    String log_level() default "INFO";

    String bind_addr() default "0.0.0.0";

    int ports_http() default 4646;

    int ports_rpc() default 4647;

    int ports_serf() default 4648;

    String addresses_http() default "";

    String addresses_rpc() default "";

    String addresses_serf() default "";

    String advertise_http() default "";

    String advertise_rpc() default "";

    String advertise_serf() default "";

    boolean server_enabled() default false;

    int server_bootstrap_expect() default 0;

    boolean client_enabled() default false;

    String[] client_servers() default {};

    boolean acl_enabled() default false;

    boolean leave_on_interrupt() default false;

    boolean leave_on_terminate() default false;

    boolean enable_debug() default false;

    String[] files() default {};
}
